/**
 * The programs the tests run besides Node, checked before anything starts, so that a fresh machine
 * learns in one message what to install, rather than from a failure deep in the run: Java and
 * Maven for the Kafka brokers (every integration test), keytool for the keystore tests, Chromium
 * for the status page, openssl for the keystores' PEM side, util-linux's `script` for the live
 * view, MIT Kerberos's KDC for the Kerberos tests, and the optional npm package `kerberos` they
 * log in with (npm ci builds it only where MIT Kerberos's headers are installed, and leaves it out
 * quietly where they are not). Only those the chosen test files need are asked for. `.ci/run`
 * installs the same.
 */
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, isAbsolute, join } from 'node:path';

export interface Prerequisite {
  /** The program, as the tests call it (an absolute path when an override names one). */
  readonly command: string;
  /** Debian's package that has it (those that build it, for an npm package). */
  readonly debianPackage: string;
  readonly why: string;
  /** Whether a test file (its path under dist/, compiled) needs it. */
  readonly neededBy: (file: string) => boolean;
  /** An npm package rather than a program: whether it is installed, and what to run once its Debian package is. */
  readonly npmPackage?: { readonly installed: () => boolean; readonly then: string };
}

/** Whether the npm package `name` is installed where the tests run. */
export function npmPackageInstalled(name: string): boolean {
  try {
    createRequire(__filename).resolve(name);
    return true;
  } catch {
    return false;
  }
}

const integration = (file: string): boolean => file.endsWith('.test.js');

export function prerequisites(env: NodeJS.ProcessEnv = process.env, packageInstalled: (name: string) => boolean = npmPackageInstalled): Prerequisite[] {
  const java = env['JAVA_HOME'] ? join(env['JAVA_HOME'], 'bin', 'java') : 'java';
  const keytool = env['JAVA_HOME'] ? join(env['JAVA_HOME'], 'bin', 'keytool') : 'keytool';
  return [
    { command: java, debianPackage: 'openjdk-17-jdk-headless', why: 'runs the Kafka brokers of the integration tests', neededBy: integration },
    { command: env['MIRRORFLOW_MVN'] ?? 'mvn', debianPackage: 'maven', why: "fetches Kafka's jars from Maven Central", neededBy: integration },
    {
      command: keytool,
      debianPackage: 'openjdk-17-jdk-headless',
      why: 'makes the JKS and PKCS12 stores of the keystore tests',
      neededBy: (file) => /java-keystores?\.(spec|test)\.js$/.test(file),
    },
    {
      command: 'openssl',
      debianPackage: 'openssl',
      why: 'makes the PEM files of the keystore tests',
      neededBy: (file) => /java-keystores?\.(spec|test)\.js$/.test(file),
    },
    {
      command: env['MIRRORFLOW_CHROMIUM'] ?? 'chromium',
      debianPackage: 'chromium',
      why: 'reads the status page in the observability tests',
      neededBy: (file) => /status-page\.test\.js$/.test(file),
    },
    {
      command: '/usr/sbin/krb5kdc',
      debianPackage: 'krb5-kdc',
      why: 'the MIT Kerberos KDC the Kerberos tests log in with',
      neededBy: (file) => /kerberos\.test\.js$/.test(file),
    },
    {
      command: '/usr/sbin/kadmin.local',
      debianPackage: 'krb5-admin-server',
      why: "makes the Kerberos tests' principals and keytabs",
      neededBy: (file) => /kerberos\.test\.js$/.test(file),
    },
    {
      command: 'kerberos',
      debianPackage: 'libkrb5-dev g++ make python3',
      why: "the npm package the Kerberos tests log in with, which npm ci builds against MIT Kerberos's headers",
      neededBy: (file) => /kerberos\.test\.js$/.test(file),
      npmPackage: { installed: () => packageInstalled('kerberos'), then: 'npm ci' },
    },
    {
      command: 'script',
      debianPackage: 'bsdutils',
      why: "util-linux's script: the live view is tested under a pseudo-terminal",
      neededBy: (file) => /live-view\.test\.js$/.test(file),
    },
  ];
}

/** Whether `command` (a name looked up on PATH, or a path) can be run. */
export function isInstalled(command: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const candidates = isAbsolute(command)
    ? [command]
    : (env['PATH'] ?? '')
        .split(delimiter)
        .filter((dir) => dir !== '')
        .map((dir) => join(dir, command));
  return candidates.some((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** What to tell the user when programs the files need are missing; undefined when none is. */
export function missingPrerequisites(
  files: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  packageInstalled: (name: string) => boolean = npmPackageInstalled,
): string | undefined {
  const missing = prerequisites(env, packageInstalled).filter(
    (p) => files.some(p.neededBy) && !(p.npmPackage === undefined ? isInstalled(p.command, env) : p.npmPackage.installed()),
  );
  if (missing.length === 0) return undefined;
  const width = Math.max(...missing.map((p) => p.command.length));
  const packages = [...new Set(missing.map((p) => p.debianPackage))];
  return [
    'The tests need what this machine does not have:',
    ...missing.map((p) => `  ${p.command.padEnd(width)}  ${p.why}`),
    'On Debian or Ubuntu (as root, or with sudo):',
    `  apt-get install ${packages.join(' ')}`,
    ...[...new Set(missing.flatMap((p) => (p.npmPackage === undefined ? [] : [p.npmPackage.then])))].map(
      (command) => `then, for the npm packages above: ${command}`,
    ),
  ].join('\n');
}
