import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KAFKA_ARTIFACTS, loggingBackend, missingSlf4jBinding, renderKafkaPom } from './maven-pom';

test('renderKafkaPom depends on broker, tools and connect-mirror at the requested version', () => {
  const pom = renderKafkaPom('4.3.1');
  for (const artifact of KAFKA_ARTIFACTS) {
    assert.match(pom, new RegExp(`<artifactId>${artifact}</artifactId><version>4\\.3\\.1</version>`));
  }
  assert.match(pom, /<packaging>pom<\/packaging>/);
});

test('renderKafkaPom refuses text that is not a release number, so nothing can be injected into the XML', () => {
  assert.throws(() => renderKafkaPom('4.3.1</version><evil>'), RangeError);
  assert.throws(() => renderKafkaPom('latest'), RangeError);
  assert.doesNotThrow(() => renderKafkaPom('4.0.0-rc1'));
});

const kafka4 = ['kafka_2.13-4.3.1.jar', 'slf4j-api-1.7.36.jar', 'log4j-api-2.25.4.jar', 'log4j-core-2.25.4.jar'];
const kafka3 = ['kafka_2.13-3.9.1.jar', 'slf4j-api-1.7.36.jar', 'slf4j-reload4j-1.7.36.jar', 'reload4j-1.2.25.jar'];

test('missingSlf4jBinding asks for the slf4j 1.x bridge at the log4j-core version for Kafka 4.x jars', () => {
  assert.deepEqual(missingSlf4jBinding(kafka4), {
    groupId: 'org.apache.logging.log4j',
    artifactId: 'log4j-slf4j-impl',
    version: '2.25.4',
  });
});

test('missingSlf4jBinding picks the slf4j 2.x bridge when slf4j-api is 2.x', () => {
  const jars = kafka4.map((jar) => jar.replace('slf4j-api-1.7.36', 'slf4j-api-2.0.17'));
  assert.equal(missingSlf4jBinding(jars)?.artifactId, 'log4j-slf4j2-impl');
});

test('missingSlf4jBinding finds nothing missing when a binding is already there', () => {
  assert.equal(missingSlf4jBinding(kafka3), undefined);
  assert.equal(missingSlf4jBinding([...kafka4, 'log4j-slf4j-impl-2.25.4.jar']), undefined);
});

test('loggingBackend tells log4j2 (Kafka 4.x) from reload4j (Kafka 3.x)', () => {
  assert.equal(loggingBackend(kafka4), 'log4j2');
  assert.equal(loggingBackend(kafka3), 'log4j1');
  assert.equal(loggingBackend(['kafka-clients-4.3.1.jar']), 'none');
});
