import type { TransformCounter, TransformMetrics } from '../../plugins';

/** One counter a transform step created, with its value so far. */
export interface TransformCounterValue {
  /** The transform's name, e.g. `mask_json_field`. */
  readonly transform: string;
  /** The step's place in the flow's `transforms:` list, from 0. */
  readonly step: string;
  readonly name: string;
  readonly help: string;
  readonly value: number;
}

const COUNTER_NAME = /^[a-z][a-z0-9_]*$/;

interface Entry {
  readonly transform: string;
  readonly step: string;
  readonly name: string;
  readonly help: string;
  value: number;
}

/**
 * The counters a flow's transforms create through `context.metrics` (src/plugins/api.ts). An
 * increment is one addition to a number; the metrics endpoint reads the values at scrape time.
 */
export class TransformCounters {
  private readonly entries: Entry[] = [];

  /** What one step's `context.metrics` is; `path` is the step's place in the file (`flows[0].transforms[1]`). */
  forStep(step: { readonly plugin: string; readonly path: string }): TransformMetrics {
    const index = /transforms\[(\d+)\]$/.exec(step.path)?.[1] ?? step.path;
    return {
      counter: (name: string, help: string): TransformCounter => {
        if (!COUNTER_NAME.test(name)) throw new Error(`counter name "${name}" is not snake_case (letters, digits and _, starting with a letter)`);
        let entry = this.entries.find((e) => e.step === index && e.name === name);
        if (entry === undefined) {
          entry = { transform: step.plugin, step: index, name, help, value: 0 };
          this.entries.push(entry);
        }
        const counted = entry;
        return {
          inc: (by = 1) => {
            // A counter only goes up; a negative or non-number increment is a plugin bug, ignored.
            if (by > 0) counted.value += by;
          },
        };
      },
    };
  }

  values(): TransformCounterValue[] {
    return this.entries.map((e) => ({ transform: e.transform, step: e.step, name: e.name, help: e.help, value: e.value }));
  }
}
