/**
 * The pipeline file, as one zod schema: the single source of truth for validation, defaults, the
 * JSON Schema editors use (`config/pipeline.schema.json`) and the docs. Every key says which MM2
 * setting it stands for, so an MM2 user can find their way, and where our default differs, why.
 * Each section of the file has its own file beside this one (`clusters.ts`, `security.ts`,
 * `flows.ts` and the flow's sections, `logging.ts`, `http.ts`); this one assembles them.
 *
 * The schema describes the file as written. Cross-field rules (a flow names declared clusters,
 * `sasl` iff a SASL protocol, regexes compile) live in `check-pipeline-semantics.ts`, because they must be
 * reported together with the shape problems, not only once the shape is right.
 */
import { z } from '#zod';
import { clusterAliasPattern, clusterSchema } from './clusters';
import { flowDefaultsSchema, flowSchema, linkSchema } from './flows';
import { httpSchema } from './http';
import { loggingSchema } from './logging';

/** The pipeline name goes into group ids and client ids. */
export const pipelineNamePattern = /^[A-Za-z0-9._-]+$/;

export const pipelineFileSchema = z
  .strictObject({
    name: z
      .string()
      .regex(pipelineNamePattern, { error: 'may only contain letters, digits, ".", "_" and "-"' })
      .optional()
      .describe('Pipeline name, used in group ids and client ids; default: the file name without extension.'),
    clusters: z
      .record(z.string().regex(clusterAliasPattern, { error: 'a cluster alias may only contain letters, digits, "_" and "-"' }), clusterSchema)
      .describe('Clusters by alias. MM2: `clusters` plus the `<alias>.*` properties.'),
    flow_defaults: flowDefaultsSchema.optional(),
    flows: z
      .array(flowSchema)
      .min(1)
      .optional()
      .describe('Replication flows, one direction each; a pipeline has flows, links or both. MM2: the `A->B.enabled = true` flows.'),
    links: z
      .array(linkSchema)
      .optional()
      .describe(
        'Bidirectional links: each replicates both ways between two clusters, as two flows (`a->b`, `b->a`) that share its settings, with provenance headers on (docs/active-active.md). A mirrorflow extension.',
      ),
    plugins: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'npm packages of transform plugins the flows may use as `type:`, e.g. `@acme/mirrorflow-mask`: each default-exports one transform definition, and is found as `require` finds it from the folder of this file (its `node_modules` or one above). A mirrorflow extension.',
      ),
    logging: loggingSchema.prefault({}),
    http: httpSchema.prefault({}),
  })
  .meta({
    title: 'mirrorflow pipeline',
    description: 'A mirrorflow pipeline: Kafka clusters and the flows that replicate topics between them. Run with `mirrorflow run FILE`.',
  });
