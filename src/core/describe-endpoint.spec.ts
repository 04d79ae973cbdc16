import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEndpoint } from './describe-endpoint';

test('an endpoint shown in messages loses its user info and query', () => {
  assert.equal(describeEndpoint('https://user:pw@idp.example:8443/token?key=abc'), 'https://idp.example:8443/token');
  assert.equal(describeEndpoint('not a url'), '(an invalid URL)');
});
