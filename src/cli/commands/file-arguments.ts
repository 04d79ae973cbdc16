/** What the commands that read a pipeline take, said the same way in every help text. */

/** Commands that take several files (`run`, `plan`, `schemas copy`). */
export const PIPELINE_FILES =
  'pipeline YAML file, MM2 driver file (*.properties), or MM2 connector configs (*.properties, *.json) that make one pipeline together';

/** Commands that take one file (`diff` and the tools): a connector config alone is read as one too. */
export const PIPELINE_FILE = 'pipeline YAML file, MM2 driver file (*.properties), or an MM2 connector config (*.properties, *.json)';
