#!/usr/bin/env node
/**
 * The `mirrorflow` command (package.json's `bin`). First the compile cache, before anything else
 * loads; then the command line, from its bundle when that is current (load-cli.ts).
 */
import './compile-cache';
import { loadCli } from './load-cli';

loadCli(module);
