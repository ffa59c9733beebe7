import { defineProject, type UserWorkspaceConfig } from 'vitest/config';

/**
 * The vitest project every package uses. The `source` export condition makes workspace
 * packages resolve to their TypeScript sources, so tests never depend on a prior build.
 */
export function packageProject(name: string, test: UserWorkspaceConfig['test'] = {}): UserWorkspaceConfig {
  return defineProject({
    resolve: { conditions: ['source'] },
    ssr: { resolve: { conditions: ['source'] } },
    test: {
      name,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: 20_000,
      ...test,
    },
  });
}
