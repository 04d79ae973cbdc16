import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseJaasConfig } from './jaas-config';

describe('parseJaasConfig', () => {
  it('reads the login module, the flag and quoted or bare options', () => {
    const parsed = parseJaasConfig('org.apache.kafka.common.security.scram.ScramLoginModule required username="mm2" password=\'p "x";\' extra=bare;');
    assert.ok('module' in parsed);
    assert.equal(parsed.module.loginModule, 'org.apache.kafka.common.security.scram.ScramLoginModule');
    assert.equal(parsed.module.controlFlag, 'required');
    assert.deepEqual(Object.fromEntries(parsed.module.options), { username: 'mm2', password: 'p "x";', extra: 'bare' });
  });

  it('keeps escaped quotes and skips comments', () => {
    const parsed = parseJaasConfig('/* c */ a.B Required // note\n username="a\\"b" password="";');
    assert.ok('module' in parsed);
    assert.deepEqual(Object.fromEntries(parsed.module.options), { username: 'a"b', password: '' });
  });

  it('says what is wrong without quoting the text', () => {
    const cases: [string, RegExp][] = [
      ['a.B required username="x"', /must end with ";"/],
      ['a.B always username="x";', /control flag/],
      ['a.B required username="x', /not closed/],
      ['a.B required username;', /expected "="/],
      ['a.B required; c.D required;', /exactly one login module, not 2/],
      ['a.B required user=secret#1;', /inside quotes/],
    ];
    for (const [text, message] of cases) {
      const parsed = parseJaasConfig(text);
      assert.ok('error' in parsed, text);
      assert.match(parsed.error, message);
      assert.doesNotMatch(parsed.error, /secret/);
    }
  });
});
