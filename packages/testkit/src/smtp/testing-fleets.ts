import { afterEach } from 'vitest';
import type { SmtpFleet } from './fleet.js';

/** For this package's tests: `start`, with every fleet it starts closed after the test that started it. */
export function closedAfterEach<Options>(
  start: (options: Options) => Promise<SmtpFleet>,
): (options: Options) => Promise<SmtpFleet> {
  const running: SmtpFleet[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((fleet) => fleet.close()));
  });
  return async (options) => {
    const fleet = await start(options);
    running.push(fleet);
    return fleet;
  };
}
