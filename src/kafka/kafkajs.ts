/**
 * The one door to kafkajs: checks mirrorflow's record codec is in kafkajs's bundle and installs
 * the wrappers first (wire/install.ts), then re-exports kafkajs (`#kafkajs`, its bundle, which
 * scripts/bundle-vendor.mjs builds). Every adapter imports kafkajs from here, never directly; kafkajs's
 * private parts are reached only through src/kafka/wire.
 */
import './wire/install';
export * from '#kafkajs';
