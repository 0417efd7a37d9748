import type { JobContract } from '@cutroom/shared/contracts/index';
import type { JobRow } from '../db/schema.ts';
import type { OutputFile } from './definition.ts';

type OutputNames<C extends JobContract> = keyof C['outputs'] & string;
type OptionalNames<C extends JobContract> = { [N in OutputNames<C>]: C['outputs'][N] extends { isOptional: true } ? N : never }[OutputNames<C>];
/** When the job writes each optional output of its contract: a rule for each, and only for those. */
type WhenRules<C extends JobContract> = { readonly [N in OptionalNames<C>]: (job: JobRow) => boolean };

/**
 * A type's files as its contract declares them (name, content type, the JSON schema completion
 * checks), in the contract's order (the assignment's outputs keep it). A contract with optional
 * outputs needs `when` for each of them: the coordinator decides per job which ones it asks for.
 */
export function outputFiles<C extends JobContract>(
  contract: C,
  ...[when]: [OptionalNames<C>] extends [never] ? [] : [WhenRules<C>]
): { readonly [N in OutputNames<C>]: OutputFile } {
  const rules: Readonly<Record<string, (job: JobRow) => boolean>> = when ?? {};
  const files: Record<string, OutputFile> = {};
  for (const [name, spec] of Object.entries(contract.outputs)) {
    const rule = rules[name];
    files[name] = { contentType: spec.contentType, ...(spec.schema && { schema: spec.schema }), ...(rule && { when: rule }) };
  }
  return files as { readonly [N in OutputNames<C>]: OutputFile };
}
