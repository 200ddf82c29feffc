/**
 * Health components (spec §11.4). Each check runs with a 3 s bound; one that does not answer in
 * time counts as down. Advisory components (capture) are listed but never make readiness 503.
 */
export interface HealthComponent {
  readonly name: string;
  readonly advisory?: boolean;
  check(): boolean | Promise<boolean>;
}

export interface HealthReport {
  readonly healthy: boolean;
  readonly body: {
    status: 'healthy' | 'unhealthy';
    components: Record<string, { status: 'up' | 'down' }>;
  };
}

const CHECK_BOUND_MS = 3000;

export const LIVENESS_BODY = {
  status: 'healthy',
  components: { process: { status: 'up' } },
} as const;

export async function readiness(components: readonly HealthComponent[]): Promise<HealthReport> {
  const results = await Promise.all(components.map((component) => bounded(component)));
  const body: HealthReport['body'] = { status: 'healthy', components: {} };
  let healthy = true;
  components.forEach((component, index) => {
    const up = results[index] === true;
    body.components[component.name] = { status: up ? 'up' : 'down' };
    if (!up && !component.advisory) healthy = false;
  });
  body.status = healthy ? 'healthy' : 'unhealthy';
  return { healthy, body };
}

async function bounded(component: HealthComponent): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), CHECK_BOUND_MS);
    });
    return await Promise.race([Promise.resolve().then(() => component.check()), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
