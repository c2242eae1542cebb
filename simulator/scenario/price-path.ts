import { csvPrices } from './csv-path';
import { gbmPrices } from './gbm-path';
import { piecewiseLinear } from './piecewise-linear';
import type { PathSpec } from './scenario-types';

export interface PathOptions {
  blocks: number;
  blockTimeSeconds: number;
  /** The scenario's seed; a gbm path's own `seed` wins over it. */
  seed: number;
  /** Folder CSV files are relative to: the scenario file's. */
  baseDir: string;
}

/** The target price (QUOTE per BASE) at every block 0..blocks of a validated path. */
export function pathPrices(path: PathSpec, opts: PathOptions): number[] {
  switch (path.kind) {
    case 'points':
      return piecewiseLinear(path.points, opts.blocks);
    case 'gbm':
      return gbmPrices(path, opts.blocks, opts.blockTimeSeconds, path.seed ?? opts.seed);
    case 'csv':
      return csvPrices(path.file, opts.baseDir, opts.blocks, opts.blockTimeSeconds);
  }
}
