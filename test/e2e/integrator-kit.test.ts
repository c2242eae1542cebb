import { useEmbeddedService } from '../helpers/embedded-service';
import { cliJourney } from './integrator-kit/cli-journey';
import { docsPageJourney } from './integrator-kit/docs-page-journey';
import { examplesJourney } from './integrator-kit/examples-journey';
import { sdkJourney } from './integrator-kit/sdk-journey';

/**
 * The integrator kit as a new user meets it, against `npm start`: from nothing to an executed limit order with the
 * SDK alone, with the CLI alone, from the docs page alone in a browser, and the examples. One service for all of
 * them (each journey uses its own maker account), so the suite starts the service once.
 */

jest.setTimeout(240_000);

describe('integrator kit against npm start', () => {
  const service = useEmbeddedService();
  sdkJourney(service);
  cliJourney(service);
  examplesJourney(service);
  docsPageJourney(service);
});
