import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterUnavailableError, ConfigError } from '../core/errors';
import { failureText, problemCount } from './failure-text';

describe('failureText', () => {
  it('prints each problem with its hint, then how many there are and where', () => {
    const error = new ConfigError([
      { file: 'p.yaml', line: 7, column: 5, path: 'flows[0].batchng', message: 'unknown key', hint: 'did you mean "batching"?' },
      { file: 'p.yaml', line: 9, column: 15, path: 'flows[0].topics[0]', message: 'invalid regular expression "[a": unclosed character class' },
    ]);
    assert.equal(
      failureText(error),
      [
        'p.yaml:7:5: flows[0].batchng: unknown key',
        '  hint: did you mean "batching"?',
        'p.yaml:9:15: flows[0].topics[0]: invalid regular expression "[a": unclosed character class',
        'mirrorflow: 2 problems in p.yaml',
        '',
      ].join('\n'),
    );
  });

  it('prints nothing for problems the command printed itself, and other failures after the program name', () => {
    assert.equal(failureText(new ConfigError([{ message: 'x' }], { reported: true })), '');
    assert.equal(failureText(new ClusterUnavailableError('backup', 'cannot be reached')), 'mirrorflow: Cluster "backup": cannot be reached\n');
  });

  it('counts problems per file', () => {
    assert.equal(problemCount([{ message: 'a' }]), '1 problem');
    assert.equal(
      problemCount([
        { file: 'a', message: 'a' },
        { file: 'b', message: 'b' },
      ]),
      '2 problems in 2 files',
    );
    assert.equal(problemCount([{ file: 'a', message: 'a' }], 'warning'), '1 warning in a');
  });
});
