import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { normalizePem } from './pem';

test('PEM joined onto one line (an mm2.properties value continued with \\) becomes PEM that Node reads again', () => {
  const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const twoBlocks = key + key;
  const oneLine = twoBlocks.replace(/\n/g, ' ');
  assert.throws(() => createPrivateKey(oneLine));
  assert.equal(normalizePem(oneLine), twoBlocks);
  assert.equal(createPrivateKey(normalizePem(oneLine)).asymmetricKeyType, 'ec');
});

test('text without a PEM block is left for Node to refuse', () => {
  assert.equal(normalizePem('not a certificate'), 'not a certificate');
});
