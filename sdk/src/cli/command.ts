import type { Args } from './args';
import type { Context } from './context';

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** The value's placeholder in usage lines (string options). */
  value?: string;
  required?: boolean;
  description: string;
}

export interface PositionalSpec {
  name: string;
  description: string;
}

/** One command (`chains`) or subcommand (`order create`): its usage is generated from these declarations. */
export interface CommandSpec {
  /** Words typed after `tas`, e.g. `order create`. */
  name: string;
  summary: string;
  /** Longer text for the command's help, when the summary is not enough. */
  description?: string;
  /** All required, in order. */
  positionals?: PositionalSpec[];
  options: Record<string, OptionSpec>;
  examples?: string[];
  run(ctx: Context, args: Args): Promise<void>;
}

/** Accepted by every command. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec & { short?: string }> = {
  json: { type: 'boolean', description: 'print the result as JSON on stdout, and nothing else' },
  profile: {
    type: 'string',
    value: 'NAME',
    description: 'the profile of the profile file to use (default: default)',
  },
  help: { type: 'boolean', short: 'h', description: 'show the usage of the command' },
};
