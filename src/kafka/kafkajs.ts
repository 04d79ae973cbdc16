/**
 * The one door to kafkajs: installs mirrorflow's record codec and wrappers first (wire/install.ts),
 * then re-exports kafkajs. Every adapter imports kafkajs from here, never directly; kafkajs's
 * private parts are reached only through src/kafka/wire.
 */
import './wire/install';
export * from 'kafkajs';
