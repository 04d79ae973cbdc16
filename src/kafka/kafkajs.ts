/**
 * The one door to kafkajs: installs mirrorflow's record codec first, then re-exports kafkajs.
 * Every adapter imports kafkajs from here, never directly. `group-hooks` wraps kafkajs's
 * consumer group rejoin (see there).
 */
import './wire/install';
import './consumer/group-hooks';
export * from 'kafkajs';
