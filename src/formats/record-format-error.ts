import { MirrorflowError, type ErrorOptions } from '../core/errors';

/**
 * A record on an MM2 internal topic (or one we were about to write) does not fit its format:
 * short buffer, negative or oversized string length, unsafe offset, bad JSON.
 *
 * MM2 skips such records (`SchemaException` in `CheckpointStore` and `MirrorClient`), so callers
 * catch this, log a warning and move on. Retrying cannot help: the bytes will not change.
 */
export class RecordFormatError extends MirrorflowError {
  override readonly name = 'RecordFormatError';
  override readonly code = 'RECORD_FORMAT';

  constructor(message: string, options: ErrorOptions = {}) {
    super(message, options);
  }
}
