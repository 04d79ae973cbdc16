/**
 * The launcher's defaults, apart from the launcher: `mirrorflow local --help` shows them, and the
 * command line is built at every start, `mirrorflow run` included, which must not load the
 * launcher to do so.
 */

/**
 * Newest Kafka whose broker, tools and connect-mirror jars are all on Maven Central
 * (connect-mirror 4.4.0 is not published there).
 */
export const DEFAULT_KAFKA_VERSION = '4.3.1';

/** The clusters `mirrorflow local up` starts when none are named. */
export const DEFAULT_ALIASES: readonly string[] = ['primary', 'backup'];
