import type { RunnerTask } from 'vitest';
import { expect, it } from 'vitest';

/**
 * Where no SQL Server answers, the file's suites are skipped; this one test prints which suites
 * were skipped and how many tests each holds, and checks that each says why in its title, so the
 * run's output lists what could not be run instead of a bare skipped count.
 */
export function reportSkippedSuites(service: string, reason: string): void {
  it(`reports the ${service} suites this run skipped`, (context) => {
    const file = context.task.file;
    const suites = file.tasks.filter((task) => task.type === 'suite' && task.mode === 'skip');
    expect(suites.length).toBeGreaterThan(0);
    const lines = suites.map((suite) => {
      expect(suite.name).toContain('(skipped: ');
      return `  - ${suite.name.replace(/ \(skipped: .*$/, '')}: ${countTests(suite)} tests`;
    });
    console.warn(`SKIPPED ${service} suites (${reason}):\n${lines.join('\n')}`);
  });
}

function countTests(task: RunnerTask): number {
  if (task.type === 'test') return 1;
  return task.type === 'suite' ? task.tasks.reduce((n, child) => n + countTests(child), 0) : 0;
}
