import { type MonoTypeOperatorFunction, type Observable, concatMap } from '#rxjs';
import type { WrittenBatches } from '../../core/ports/write-path';

/**
 * After the target acknowledged a write: the failures of its batches' transforms go to the
 * dead-letter topic (`deadLetter`, the write path's), and the write passes on, in order, once
 * they are acknowledged there too, so its progress never passes a record that went nowhere.
 */
export function deadLetterFailures(deadLetter: (written: WrittenBatches) => Observable<WrittenBatches>): MonoTypeOperatorFunction<WrittenBatches> {
  return concatMap(deadLetter);
}
