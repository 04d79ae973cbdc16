/**
 * A record as field-level transforms see it: Connect data for the key and the value, each read
 * by the flow's converter when a transform first asks for it, and written back by the same
 * converter only if it was read (a side no transform touched keeps its bytes).
 */
import type { MirrorRecord, RecordHeader } from '../../core/record';
import { ConnectDataError, SchemaAndValue, type ConnectValue } from './connect-value';
import { dataConverter, isRegistryConverterName, type DataConverter, type FlowConverters } from './converters';

export type Side = 'key' | 'value';

interface Slot {
  readonly data: ConnectValue;
}

export class DataRecord {
  private constructor(
    private readonly base: MirrorRecord,
    private readonly converters: FlowConverters,
    private keySlot: Slot | undefined,
    private valueSlot: Slot | undefined,
  ) {}

  static of(record: MirrorRecord, converters: FlowConverters): DataRecord {
    return new DataRecord(record, converters, undefined, undefined);
  }

  get topic(): string {
    return this.base.topic;
  }

  get partition(): number {
    return this.base.partition;
  }

  get timestamp(): number {
    return this.base.timestamp;
  }

  get headers(): readonly RecordHeader[] {
    return this.base.headers;
  }

  /** The source offset (Connect gives it to sink records only). */
  get offset(): number {
    return this.base.source.offset;
  }

  get key(): ConnectValue {
    this.keySlot ??= { data: this.converter('key').read(this.base.key) };
    return this.keySlot.data;
  }

  get value(): ConnectValue {
    this.valueSlot ??= { data: this.converter('value').read(this.base.value) };
    return this.valueSlot.data;
  }

  /**
   * Whether the value is null as Connect's record would hold it: read by the value converter
   * when the flow has one (a JSON `null` is null), else whether there are no bytes.
   */
  isTombstone(): boolean {
    if (this.valueSlot === undefined && dataConverter(this.converters.value) === undefined) return this.base.value === null;
    const value = this.value;
    return value === null || (value instanceof SchemaAndValue && value.value === null);
  }

  side(side: Side): ConnectValue {
    return side === 'key' ? this.key : this.value;
  }

  /** A copy with new data for a side. */
  with(side: Side, data: ConnectValue): DataRecord {
    const slot = { data };
    return side === 'key' ? new DataRecord(this.base, this.converters, slot, this.valueSlot) : new DataRecord(this.base, this.converters, this.keySlot, slot);
  }

  /** A copy with other headers. */
  withHeaders(headers: readonly RecordHeader[]): DataRecord {
    return new DataRecord({ ...this.base, headers }, this.converters, this.keySlot, this.valueSlot);
  }

  /** The record with the sides that were read written back by their converters. */
  toRecord(): MirrorRecord {
    if (this.keySlot === undefined && this.valueSlot === undefined) return this.base;
    return {
      ...this.base,
      ...(this.keySlot !== undefined && { key: this.converter('key').write(this.keySlot.data) }),
      ...(this.valueSlot !== undefined && { value: this.converter('value').write(this.valueSlot.data) }),
    };
  }

  private converter(side: Side): DataConverter {
    const name = this.converters[side];
    const converter = dataConverter(name, this.converters.registry?.[side]);
    // The chain refuses a field-level step without a converter for its sides before it runs;
    // only a flow with a schema_registry has registry converters (mirrorflow test has none).
    if (converter === undefined) {
      throw new ConnectDataError(
        isRegistryConverterName(name)
          ? `the record's ${side} is read by the ${name} converter, which needs the flow's schema_registry`
          : `the record's ${side} is bytes: set the flow's ${side} converter`,
      );
    }
    return converter;
  }
}
