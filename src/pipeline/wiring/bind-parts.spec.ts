import { test } from 'node:test';
import assert from 'node:assert/strict';
import 'reflect-metadata';
import { type Bind, Container, ContainerModule } from '#inversify';
import { token } from '../../core/ports/token';
import { bindConstant, bindParts, optional } from './bind-parts';

interface Writer {
  readonly role: string;
  write(value: string): string;
}
interface Source {
  readonly cluster: string;
}
interface Made {
  readonly written: string;
  readonly source: string;
  readonly deadLetters: string;
}

const RecordsWriter = token<Writer>('spec.RecordsWriter');
const ProgressWriter = token<Writer>('spec.ProgressWriter');
const DeadLetters = token<Writer>('spec.DeadLetters');
const Records = token<Source>('spec.Records');
const MadeToken = token<Made>('spec.Made');

class Counter {
  count = 0;
}

const writer = (role: string): Writer => ({ role, write: (value) => `${role}:${value}` });

function container(withDeadLetters: boolean): Container {
  const c = new Container();
  c.load(
    new ContainerModule(({ bind }) => {
      bindConstant(bind, RecordsWriter, writer('records'));
      bindConstant(bind, ProgressWriter, writer('progress'));
      if (withDeadLetters) bindConstant(bind, DeadLetters, writer('dead-letters'));
      bindConstant(bind, Records, { cluster: 'primary' });
      bind(Counter).toSelf().inSingletonScope();
      bindParts(
        bind,
        MadeToken,
        { writer: RecordsWriter, source: Records, deadLetters: optional(DeadLetters), counter: Counter },
        ({ writer, source, deadLetters, counter }) => {
          counter.count++;
          return { written: writer.write('r'), source: source.cluster, deadLetters: deadLetters?.role ?? 'none' };
        },
      );
    }),
  );
  return c;
}

test('bindParts gives each part by name from its token, an optional one undefined where unbound, once (a singleton)', () => {
  const c = container(true);
  assert.deepEqual(c.get(MadeToken), { written: 'records:r', source: 'primary', deadLetters: 'dead-letters' });
  assert.equal(c.get(MadeToken), c.get(MadeToken));
  assert.equal(c.get(Counter).count, 1, 'made once');
  assert.equal(container(false).get<Made>(MadeToken).deadLetters, 'none');
});

test('the compiler checks each part against its token and the result against the bound token', () => {
  // Compiled, never run: each line after a directive must be a type error, or the build fails.
  const wrong = (bind: Bind): void => {
    // @ts-expect-error a source's token where the part is used as a writer
    bindParts(bind, MadeToken, { writer: Records }, ({ writer }) => ({ written: writer.write('r'), source: '', deadLetters: '' }));
    // @ts-expect-error the result is not what the token is bound to
    bindParts(bind, MadeToken, { writer: RecordsWriter }, ({ writer }) => ({ written: writer.write('r') }));
    // @ts-expect-error an optional part may be undefined
    bindParts(bind, MadeToken, { dead: optional(DeadLetters) }, ({ dead }) => ({ written: dead.role, source: '', deadLetters: '' }));
    // @ts-expect-error a constant of another type
    bindConstant(bind, Records, writer('records'));
  };
  assert.equal(typeof wrong, 'function');
});
