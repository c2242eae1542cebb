import { loadConfig } from '../../shared/config/load-config';
import { createKnex, dialectOf } from '../../shared/store/create-knex';
import { migrateToLatest } from '../../shared/store/migrate';
import { AccountsRepository } from '../../shared/store/repositories/accounts-repository';

const USAGE = 'usage: npm run accounts -- list | deactivate <apiKey> | activate <apiKey>';

/**
 * The operator's account tool: the spec leaves deactivation to the operator. It works on the store the api uses
 * (DATABASE_URL or the SQLite file in DATA_DIR); running api processes notice within ACCOUNT_CACHE_TTL_MS.
 */
export async function runAccountsCommand(
  args: string[],
  write: (line: string) => void,
  env: Partial<Record<string, string>> = process.env,
): Promise<number> {
  const [command, apiKey] = args;
  if (!command || !['list', 'deactivate', 'activate'].includes(command) || (command !== 'list' && !apiKey)) {
    write(USAGE);
    return 2;
  }
  const config = loadConfig(env);
  const knex = createKnex(config);
  try {
    await migrateToLatest(knex);
    const accounts = new AccountsRepository(knex);
    if (command === 'list') {
      const all = await accounts.list();
      write(`${all.length} account(s) in the ${dialectOf(config)} store`);
      for (const a of all) {
        write(
          `${a.apiKey}  ${a.active ? 'active  ' : 'inactive'}  ${new Date(a.createdAt).toISOString()}  ${a.name}`,
        );
      }
      return 0;
    }
    const active = command === 'activate';
    if (!(await accounts.setActive(apiKey.toLowerCase(), active, Date.now()))) {
      write(`No account with API key ${apiKey}`);
      return 1;
    }
    write(`Account ${apiKey} ${active ? 'activated' : 'deactivated'}`);
    return 0;
  } finally {
    await knex.destroy();
  }
}

if (require.main === module) {
  runAccountsCommand(process.argv.slice(2), (line) => console.log(line)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: Error) => {
      console.error(`accounts: ${err.message}`);
      process.exitCode = 1;
    },
  );
}
