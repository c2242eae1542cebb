import { GLOBAL_OPTIONS, type CommandSpec, type OptionSpec } from './command';

const optionText = (name: string, option: OptionSpec): string =>
  option.type === 'string' ? `--${name} ${option.value ?? 'VALUE'}` : `--${name}`;

/** `tas order get ID --json ...`: positionals, required options, then optional ones in brackets. */
export function usageLine(spec: CommandSpec): string {
  const parts = [`tas ${spec.name}`];
  for (const positional of spec.positionals ?? []) parts.push(positional.name);
  const options = Object.entries(spec.options);
  for (const [name, option] of options) if (option.required) parts.push(optionText(name, option));
  for (const [name, option] of options) if (!option.required) parts.push(`[${optionText(name, option)}]`);
  parts.push('[--json]', '[--profile NAME]');
  return parts.join(' ');
}

function optionLines(entries: Array<[string, OptionSpec & { short?: string }]>): string[] {
  const labels = entries.map(
    ([name, option]) => `${option.short ? `-${option.short}, ` : ''}${optionText(name, option)}`,
  );
  const width = Math.max(...labels.map((l) => l.length));
  return entries.map(
    ([, option], i) =>
      `  ${labels[i]!.padEnd(width)}  ${option.description}${option.required ? ' (required)' : ''}`,
  );
}

export function commandHelp(spec: CommandSpec): string {
  const lines = [
    `Usage: ${usageLine(spec)}`,
    '',
    `${spec.summary.charAt(0).toUpperCase()}${spec.summary.slice(1)}.`,
  ];
  if (spec.description) lines.push('', spec.description);
  if (spec.positionals?.length) {
    lines.push('', 'Arguments:');
    const width = Math.max(...spec.positionals.map((p) => p.name.length));
    for (const p of spec.positionals) lines.push(`  ${p.name.padEnd(width)}  ${p.description}`);
  }
  const own = Object.entries(spec.options);
  if (own.length) lines.push('', 'Options:', ...optionLines(own));
  lines.push('', 'Global options:', ...optionLines(Object.entries(GLOBAL_OPTIONS)));
  if (spec.examples?.length) lines.push('', 'Examples:', ...spec.examples.map((e) => `  ${e}`));
  return `${lines.join('\n')}\n`;
}

/** The subcommands of `order`, `dca` or `account`. */
export function groupHelp(group: string, commands: readonly CommandSpec[]): string {
  const members = commands.filter((c) => c.name.startsWith(`${group} `));
  const width = Math.max(...members.map((c) => c.name.length));
  return [
    `Usage: tas ${group} <command> [options]`,
    '',
    'Commands:',
    ...members.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    `Run \`tas ${group} <command> --help\` for a command's options.`,
    '',
  ].join('\n');
}

export function generalHelp(commands: readonly CommandSpec[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'tas: the command line of the trade aggregation API',
    '',
    'Usage: tas <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    `  ${'help'.padEnd(width)}  this text; \`tas help <command>\` or \`tas <command> --help\` for a command`,
    '',
    'Global options:',
    ...optionLines(Object.entries(GLOBAL_OPTIONS)),
    '',
    'Environment:',
    "  TAS_BASE_URL      the API, ending in /api/v1 (default http://127.0.0.1:8080/api/v1; else the profile's)",
    '  TAS_API_KEY_ID, TAS_SECRET_KEY, TAS_PASSPHRASE',
    "                    credentials; each wins over the profile's field",
    '  TAS_PROFILE_FILE  the profile file (default ~/.config/tas/profile.json; must be mode 0600)',
    "  TAS_PRIVATE_KEY   the maker's wallet for swap --send, order create and dca create (never a flag)",
    '  TAS_RPC_URL       a node of the chain, for the same commands',
    "  TAS_MAKER_WALLET  a contract wallet (Safe, ERC-1271) the key signs orders for: the orders' maker; its",
    '                    allowance must already cover them (approve from the wallet)',
    '',
    'Exit codes: 0 success, 1 error (API, network, chain, profile), 2 usage error.',
    '',
  ].join('\n');
}
