import assert from 'node:assert/strict';
import { test } from 'node:test';
import { javaCommand, summarizeMavenErrors, type KafkaDistribution } from './kafka-distribution';

test('summarizeMavenErrors quotes the first [ERROR] line, which names the missing artifact', () => {
  const output = [
    '\u001b[1;31m[ERROR]\u001b[m Failed to execute goal on project kafka-distribution: Could not resolve dependencies: org.apache.kafka:kafka_2.13:jar:0.0.1 was not found',
    '[ERROR] ',
    '[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.',
  ].join('\n');
  assert.equal(
    summarizeMavenErrors(output),
    'Failed to execute goal on project kafka-distribution: Could not resolve dependencies: org.apache.kafka:kafka_2.13:jar:0.0.1 was not found',
  );
});

test('summarizeMavenErrors falls back to the last lines when there is no [ERROR] line', () => {
  assert.equal(summarizeMavenErrors('a\nb\n'), 'a b');
  assert.equal(summarizeMavenErrors(''), 'Maven failed without output.');
});

const distribution: KafkaDistribution = { version: '4.3.1', libDir: '/c/lib', classpath: '/c/lib/*', logging: 'log4j2' };

test('javaCommand runs the main class from the distribution classpath, logging into the log dir', () => {
  const { args } = javaCommand(distribution, { mainClass: 'kafka.Kafka', args: ['server.properties'], logDir: '/w/logs', heapMb: 384 });
  assert.deepEqual(args.slice(-4), ['-cp', '/c/lib/*', 'kafka.Kafka', 'server.properties']);
  assert.ok(args.includes('-Xmx384m'));
  assert.ok(args.includes('-Dkafka.logs.dir=/w/logs'));
  assert.ok(args.some((arg) => arg.startsWith('-Dlog4j2.configurationFile=') && arg.endsWith('log4j2-local-kafka.properties')));
});

test('javaCommand picks a quick-starting JVM for tools and the log4j 1 config for Kafka 3.x', () => {
  const { args } = javaCommand({ ...distribution, logging: 'log4j1' }, { mainClass: 'kafka.tools.StorageTool', profile: 'tool' });
  assert.ok(args.includes('-XX:+UseSerialGC'));
  assert.ok(!args.includes('-XX:+UseG1GC'), 'two collectors would make the JVM refuse to start');
  assert.ok(args.some((arg) => arg.startsWith('-Dlog4j.configuration=file:') && arg.endsWith('local-kafka-log4j-console.properties')));
});
