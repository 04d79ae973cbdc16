import { relative } from 'node:path';
import { MirrorflowError } from '../../core/errors';
import { runPipelineTestFile } from '../../pipeline';

/**
 * Runs every file's pipeline tests, printing each test as passed or failed with what differs,
 * and fails (exit 1) when one did; a file that cannot be read or checked is a ConfigError (78).
 */
export async function testAction(
  options: { readonly files: readonly string[]; readonly pluginDirs: readonly string[] },
  print: (text: string) => void = (text) => process.stdout.write(text),
): Promise<void> {
  let passed = 0;
  let failed = 0;
  for (const file of options.files) {
    const outcome = await runPipelineTestFile(file, { pluginDirs: options.pluginDirs });
    print(`${relative(process.cwd(), file) || file}\n`);
    for (const test of outcome.tests) {
      const at = test.line === undefined ? '' : ` (line ${test.line})`;
      if (test.differences.length === 0) {
        passed++;
        print(`  ok    ${test.name}\n`);
      } else {
        failed++;
        print(`  FAIL  ${test.name}${at}\n${test.differences.map((d) => `          ${d}\n`).join('')}`);
      }
    }
  }
  print(`${passed + failed} tests: ${passed} passed, ${failed} failed\n`);
  if (failed > 0) throw new MirrorflowError(`${failed} pipeline ${failed === 1 ? 'test' : 'tests'} failed`);
}
