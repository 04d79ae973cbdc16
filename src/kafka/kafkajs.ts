/**
 * The one door to kafkajs: installs mirrorflow's record codec first, then re-exports kafkajs.
 * Every adapter imports kafkajs from here, never directly.
 */
import './wire/install';
export * from 'kafkajs';
