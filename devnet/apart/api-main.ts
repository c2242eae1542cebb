import { serveApi } from '../../api/serve-api';
import { runUntilSignal } from '../../shared/process/run-until-signal';
import { apartConfig } from './apart-config';

/** `npm run devnet:api`: the api alone on the chains of the devnet named by DEVNET_MANIFEST. */
runUntilSignal(
  async (life) => {
    const { devnet, config } = apartConfig(process.env);
    await serveApi(life, config, devnet.file);
  },
  { failedToStart: 'api failed to start' },
);
