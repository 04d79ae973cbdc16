import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { interpolate, parseReference, type Reference, type ResolveOutcome } from './interpolate';

const echo = (reference: Reference): ResolveOutcome => ({ value: `<${reference.kind}:${JSON.stringify(reference)}>` });

describe('interpolate', () => {
  it('parses every reference form', () => {
    assert.deepEqual(parseReference('${HOST}'), { kind: 'variable', text: '${HOST}', name: 'HOST' });
    assert.deepEqual(parseReference('${HOST:127.0.0.1:9092}'), { kind: 'variable', text: '${HOST:127.0.0.1:9092}', name: 'HOST', fallback: '127.0.0.1:9092' });
    assert.deepEqual(parseReference('${HOST:}'), { kind: 'variable', text: '${HOST:}', name: 'HOST', fallback: '' });
    assert.deepEqual(parseReference('${env:PASS}'), { kind: 'env', text: '${env:PASS}', name: 'PASS' });
    // MM2's pattern: the path ends at the first colon, the key may hold more.
    assert.deepEqual(parseReference('${file:/etc/s.properties:a:b}'), {
      kind: 'file',
      text: '${file:/etc/s.properties:a:b}',
      path: '/etc/s.properties',
      key: 'a:b',
    });
    assert.deepEqual(parseReference('${dir:/run/secrets:token}'), { kind: 'dir', text: '${dir:/run/secrets:token}', path: '/run/secrets', file: 'token' });
    for (const bad of ['${}', '${1A}', '${A-B}', '${env:}', '${file:x}', '${file::k}', '${dir:p:}']) assert.equal(parseReference(bad), undefined, bad);
  });

  it('keeps text around references and turns $${ into a literal ${', () => {
    const result = interpolate('a ${X} b $${Y} c $$ d $', () => ({ value: 'x' }));
    assert.deepEqual(result, { value: 'a x b ${Y} c $$ d $', changed: true, resolved: true, problems: [] });
    assert.deepEqual(interpolate('$${ONLY}', echo), { value: '${ONLY}', changed: true, resolved: false, problems: [] });
    assert.deepEqual(interpolate('plain', echo), { value: 'plain', changed: false, resolved: false, problems: [] });
  });

  it('does not interpolate what a reference resolved to', () => {
    assert.equal(interpolate('${A}', () => ({ value: '${B}' })).value, '${B}');
  });

  it('reports each bad reference at its offset and goes on', () => {
    const result = interpolate('${OK} ${1bad} ${MISSING} ${open', (reference) =>
      reference.kind === 'variable' && reference.name === 'OK' ? { value: 'ok' } : { message: 'not set' },
    );
    assert.deepEqual(
      result.problems.map((p) => [p.offset, p.message]),
      [
        [6, 'invalid reference "${1bad}"'],
        [14, 'not set'],
        [25, 'unterminated "${"'],
      ],
    );
  });
});
