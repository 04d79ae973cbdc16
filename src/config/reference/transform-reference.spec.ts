import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { builtInTransforms, defineTransform, z } from '../../plugins';
import { TRANSFORMS_END, TRANSFORMS_START, transformReference, transformsDocPath, withTransformReference } from './transform-reference';

describe('transform reference', () => {
  it('in docs/transforms.md matches the built-ins (regenerate: npm run docs)', () => {
    const page = readFileSync(transformsDocPath, 'utf8');
    assert.equal(page, withTransformReference(page));
  });

  it("has a section per built-in with its options' types, defaults and descriptions", () => {
    const reference = transformReference();
    assert.ok(reference.startsWith(TRANSFORMS_START) && reference.endsWith(TRANSFORMS_END));
    for (const { name } of builtInTransforms) assert.ok(reference.includes(`\n### \`${name}\`\n`), name);
    assert.match(reference, /### `rename_topic`\n\n.* Kafka Connect: `RegexRouter`\.\n\nAs RegexRouter's `replaceFirst`.*\n\n\| option \|/);
    assert.match(reference, /\| `timestamp_format` \| string \| `"yyyyMMdd"` \| /);
    assert.match(reference, /\| `when\.has_header` \| string \|  \| Holds when the record has at least one header with this key\. \|/);
  });

  it("names a field-level built-in's $Key and $Value classes and the converters it reads with", () => {
    const reference = transformReference();
    assert.match(
      reference,
      /### `flatten`\n\n.* Kafka Connect: `Flatten\$Key` \(`on: key`\), `Flatten\$Value`\.\n\nField-level: .*flow's `converter` \(not `bytes`\).* Converter: `json` or `json_envelope`/,
    );
    assert.match(reference, /### `value_to_key`\n\n.* Kafka Connect: `ValueToKey`\.\n\nField-level: /);
    assert.match(reference, /### `drop_headers`\n\n.* Kafka Connect: `DropHeaders`\.\n\n\| option \|/);
  });

  it('picks up a new built-in from its definition alone', () => {
    const added = defineTransform({
      name: 'shout',
      summary: 'Upper-cases values.',
      configSchema: z.strictObject({ locale: z.string().default('en').describe('Which | locale.') }),
      create: () => ({ apply: (r) => r }),
    });
    const reference = transformReference([...builtInTransforms, added]);
    assert.match(
      reference,
      /### `shout`\n\nUpper-cases values\.\n\n\| option \| type \| default \| description \|\n\|---\|---\|---\|---\|\n\| `locale` \| string \| `"en"` \| Which \\\| locale\. \|/,
    );
  });
});
