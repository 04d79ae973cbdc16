/**
 * Reads the deployment files of the repository — the Dockerfile (through dockerfile-ast, the
 * parser of the Dockerfile language server) and the Kubernetes manifests of config/kubernetes/ —
 * into the few facts the deploy tests check.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DockerfileParser, type Instruction, type JSONInstruction } from 'dockerfile-ast';
import { parseAllDocuments } from '#yaml';

/** The repository root, from `dist/test/deploy`. */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const DOCKERFILE = join(REPO_ROOT, 'Dockerfile');
export const KUBERNETES_DIR = join(REPO_ROOT, 'config', 'kubernetes');

export interface DockerStage {
  /** `AS` name; undefined for the last, unnamed stage. */
  readonly name?: string;
  readonly image: string;
  readonly instructions: readonly Instruction[];
}

export function dockerfileText(): string {
  return readFileSync(DOCKERFILE, 'utf8');
}

export function dockerStages(text = dockerfileText()): DockerStage[] {
  return DockerfileParser.parse(text)
    .getFROMs()
    .map((from, index, froms) => {
      const start = from.getRange().start.line;
      const end = froms[index + 1]?.getRange().start.line ?? Number.MAX_SAFE_INTEGER;
      const instructions = DockerfileParser.parse(text)
        .getInstructions()
        .filter((i) => i.getRange().start.line >= start && i.getRange().start.line < end);
      return { name: from.getBuildStage() ?? undefined, image: from.getImage() ?? '', instructions };
    });
}

/** The arguments of the stage's last instruction `keyword`, JSON form unwrapped. */
export function lastInstruction(stage: DockerStage, keyword: string): string[] | undefined {
  const found = stage.instructions.filter((i) => i.getKeyword() === keyword).at(-1);
  if (found === undefined) return undefined;
  const json = (found as JSONInstruction).getJSONStrings?.();
  return json !== undefined && json.length > 0 ? json.map((s) => s.getJSONValue()) : found.getArguments().map((a) => a.getValue());
}

/** The shell text of every RUN of the stage, continuation lines joined. */
export function runCommands(stage: DockerStage): string[] {
  return stage.instructions.filter((i) => i.getKeyword() === 'RUN').map((i) => i.getArgumentsContent()?.replace(/\\\n\s*/g, '') ?? '');
}

export type Manifest = { readonly kind: string; readonly metadata: { readonly name: string } } & Record<string, unknown>;

/** Every document of a manifest file; a YAML error fails loudly with the file's name. */
export function manifestFile(file: string): Manifest[] {
  const path = join(KUBERNETES_DIR, file);
  return parseAllDocuments(readFileSync(path, 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors.map((e) => e.message).join('; ')}`);
    return doc.toJS() as Manifest;
  });
}

/** The manifests kustomization.yaml lists, in its order. */
export function kustomizedManifests(): Manifest[] {
  const [kustomization] = manifestFile('kustomization.yaml') as unknown as [{ resources: string[] }];
  return kustomization.resources.flatMap((file) => manifestFile(file));
}

export function manifestOfKind<T>(manifests: readonly Manifest[], kind: string): T {
  const found = manifests.filter((m) => m.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind} among the manifests, found ${found.length}`);
  return found[0] as unknown as T;
}

/** The parts of a Deployment the tests read. */
export interface DeploymentManifest {
  readonly spec: {
    readonly replicas: number;
    readonly selector: { readonly matchLabels: Record<string, string> };
    readonly template: {
      readonly metadata: { readonly labels: Record<string, string>; readonly annotations?: Record<string, string> };
      readonly spec: {
        readonly terminationGracePeriodSeconds: number;
        readonly securityContext: { runAsNonRoot?: boolean; runAsUser?: number; runAsGroup?: number };
        readonly containers: readonly ContainerManifest[];
        readonly volumes: readonly { name: string; configMap?: { name: string; items?: { key: string; path: string }[] } }[];
      };
    };
  };
}

export interface HttpProbe {
  readonly httpGet: { readonly path: string; readonly port: string | number };
}

export interface ContainerManifest {
  readonly name: string;
  readonly args: readonly string[];
  readonly env: readonly { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  readonly ports: readonly { name: string; containerPort: number }[];
  readonly livenessProbe: HttpProbe;
  readonly readinessProbe: HttpProbe;
  readonly resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  readonly securityContext: { readOnlyRootFilesystem?: boolean; runAsNonRoot?: boolean; allowPrivilegeEscalation?: boolean };
  readonly volumeMounts: readonly { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface ServiceManifest {
  readonly metadata: { readonly annotations: Record<string, string> };
  readonly spec: { selector: Record<string, string>; ports: { name: string; port: number; targetPort: string | number }[] };
}

export interface ConfigMapManifest {
  readonly metadata: { readonly name: string };
  readonly data: Record<string, string>;
}

export interface SecretManifest {
  readonly metadata: { readonly name: string };
  readonly stringData?: Record<string, string>;
  readonly data?: Record<string, string>;
}
