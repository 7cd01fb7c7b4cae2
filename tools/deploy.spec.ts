import { spawnSync } from 'child_process';
import { existsSync, readdirSync, readFileSync } from 'fs';
import { join, resolve } from 'path';
import { parseAllDocuments } from 'yaml';
import { filesUnder, isBuilt } from './files.spec-helper';
import { SETTINGS, type SettingSpec } from '@ramp/config';
import { NATS_SERVICE_USERS, OPERATOR_USER, passwordVariableOf, SERVICE_ACCESS } from '@ramp/messaging';

/**
 * Docker cannot run where the tests run, so the Dockerfile, docker-compose.yml and deploy/ are checked against the code
 * instead: every app is built, run, probed on the port it really serves and given every setting it needs, and nothing
 * is configured that the code does not read.
 */
const ROOT = resolve(__dirname, '..');
const APPS = readdirSync(join(ROOT, 'apps')).filter((name) => existsSync(join(ROOT, 'apps', name, 'src', 'main.ts')));
const SPECS: readonly SettingSpec[] = Object.values(SETTINGS);
const IMAGE_UID = 10001;
/** Variables set in the images or manifests that are not platform settings, and who reads them. */
const NOT_SETTINGS: Record<string, string> = {
  APP: "the image's entry point, to pick dist/apps/<APP>/src/main.js",
  NODE_EXTRA_CA_CERTS: 'Node itself: a private CA for TLS to PostgreSQL, NATS or Redis (deploy/README.md)',
};
/** Settings without which a service refuses to start, or starts against the wrong servers, in production. */
const REQUIRED_IN_PRODUCTION = ['NODE_ENV', 'DATABASE_URL', 'NATS_URL', 'SECRETS_ENCRYPTION_KEY', 'REDIS_URL', 'CUSTODY_SEALING_KEY', 'TEST_CUSTODY_SEED'];

type Yaml = any;
type Env = Record<string, string>;

function text(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

function yamlDocuments(path: string, source = text(path)): Yaml[] {
  // merge: docker-compose.yml shares settings through YAML anchors and merge keys (`<<: *nats-server`), as Compose reads them.
  return parseAllDocuments(source, { merge: true })
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`${path}: ${document.errors[0]?.message}`);
      return document.toJSON();
    })
    .filter((value) => value !== null && value !== undefined);
}

function dotenv(path: string): Env {
  const lines = text(path)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

function reads(app: string, variable: string): boolean {
  const spec = SPECS.find((setting) => setting.env === variable);
  return spec !== undefined && (spec.services.includes('all') || spec.services.includes(app));
}

/** The port an app's HTTP server listens on under `env`, worked out the way its main.ts does. */
function servedPort(app: string, env: Env): number {
  if (reads(app, SETTINGS.port.env)) return Number(env[SETTINGS.port.env] || SETTINGS.port.default);
  const configured = Number(env[SETTINGS.healthPort.env] || SETTINGS.healthPort.default);
  if (configured !== 0) return configured;
  const defaultPort = /defaultPort:\s*(\d+)/.exec(text(`apps/${app}/src/main.ts`))?.[1];
  if (!defaultPort) throw new Error(`apps/${app}/src/main.ts reads neither PORT nor a defaultPort`);
  return Number(defaultPort);
}

/** The port an app serves its probes and metrics on: the gateway's OPS_PORT when set, its one port otherwise. */
function opsPort(app: string, env: Env): number {
  const configured = reads(app, SETTINGS.opsPort.env) ? Number(env[SETTINGS.opsPort.env] || SETTINGS.opsPort.default) : 0;
  return configured !== 0 ? configured : servedPort(app, env);
}

function expectRequiredSettings(app: string, env: Env): void {
  const missing = REQUIRED_IN_PRODUCTION.filter((variable) => reads(app, variable) && !env[variable]);
  expect({ app, missing }).toEqual({ app, missing: [] });
}

function expectOnlyVariablesReadBy(app: string, variables: string[]): void {
  const unread = variables.filter((variable) => !reads(app, variable) && !(variable in NOT_SETTINGS));
  expect({ app, unread }).toEqual({ app, unread: [] });
}

describe('Dockerfile', () => {
  const dockerfile = text('Dockerfile');
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => /^[A-Z]+\s/.test(line));
  const entrypoint: string[] = JSON.parse(instructions.find((line) => line.startsWith('ENTRYPOINT '))!.replace(/^ENTRYPOINT /, ''));

  it("builds on a Node.js LTS pinned to one release, one that package.json engines accept beside the machines' Node 20", () => {
    const image = /^ARG NODE_IMAGE=node:(\d+)\.(\d+)\.(\d+)-[a-z]+-slim$/m.exec(dockerfile);
    expect(image).not.toBeNull();
    const major = Number(image![1]);
    expect(major % 2).toBe(0); // even majors are the LTS lines
    expect(major).toBeGreaterThanOrEqual(24);
    const engines = (JSON.parse(text('package.json')) as { engines: { node: string } }).engines.node;
    expect(engines).toContain(`^${major}.`);
    expect(engines).toContain('^20.11');
  });

  it('builds in one stage, installs production dependencies in another and runs from a third', () => {
    const stages = instructions.filter((line) => line.startsWith('FROM ')).map((line) => /\sAS\s+(\S+)/i.exec(line)?.[1]);
    expect(stages).toEqual(['build', 'prod-deps', 'runtime']);
    expect(dockerfile).toMatch(/RUN npm install --no-save\b/);
    expect(dockerfile).toContain(`RUN npx tsc -p tsconfig.build.json`);
    expect(dockerfile).toMatch(/RUN npm install --no-save --omit=dev\b/);
    expect(dockerfile).toContain('COPY tools/register-paths.js ./tools/register-paths.js');
  });

  it('runs the APP chosen at build time the way scripts/start.sh does, with node as PID 1 and arguments passed on', () => {
    const runtime = instructions.slice(instructions.findIndex((line) => / AS runtime$/.test(line)));
    expect(runtime).toContain('ARG APP');
    expect(runtime).toContain('ENV APP=${APP}');
    const command = entrypoint.join(' ');
    expect(command).toContain('exec node -r ./tools/register-paths.js "dist/apps/${APP}/src/main.js" "$@"');
    expect(text('scripts/start.sh')).toContain('node -r ./tools/register-paths.js "dist/apps/$app/src/main.js"');
    const build = JSON.parse(text('tsconfig.build.json')).compilerOptions;
    expect([build.outDir, build.rootDir]).toEqual(['dist', '.']);
  });

  it('keeps every compiled app, which the one-container migrate service of docker-compose.yml relies on', () => {
    expect(dockerfile).toContain('COPY --from=build /app/dist/apps ./dist/apps');
    expect(dockerfile).toContain('COPY --from=build /app/dist/libs ./dist/libs');
  });

  it('runs as the non-root uid the manifests expect, without a HEALTHCHECK of its own', () => {
    expect(instructions).toContain(`USER ${IMAGE_UID}:${IMAGE_UID}`);
    expect(instructions.some((line) => line.startsWith('HEALTHCHECK'))).toBe(false);
    const variables = instructions.filter((line) => line.startsWith('ENV ')).flatMap((line) => [...line.matchAll(/(\w+)=/g)].map((match) => match[1]!));
    for (const app of APPS) expectOnlyVariablesReadBy(app, variables);
  });

  it('keeps dependencies, build output and local secrets out of the build context', () => {
    const ignored = text('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git', 'coverage', 'tmp', '.env']));
  });
});

describe('deploy/nats', () => {
  it("is a configuration the machine's nats-server accepts, given the servers' environment, with a user per service", () => {
    const users = [...NATS_SERVICE_USERS, OPERATOR_USER];
    const env = { ...process.env, NATS_SERVER_NAME: 'nats-1', ...Object.fromEntries(users.map((user) => [passwordVariableOf(user), `p${user.length}x`])) };
    const check = spawnSync('nats-server', ['-t', '-c', join(ROOT, 'deploy/nats/nats-server.conf')], { env, encoding: 'utf8' });
    expect([check.status, `${check.stdout}${check.stderr}`.trim()]).toEqual([0, expect.stringContaining('is valid')]);
    const authorization = text('deploy/nats/authorization.conf');
    for (const user of users) expect(authorization).toContain(`password: $${passwordVariableOf(user)}`);
  });
});

describe('docker-compose.yml', () => {
  const services: Record<string, Yaml> = yamlDocuments('docker-compose.yml')[0].services;
  /** `${NAME:-default}` gives its default; `${NAME:?message}` stands for the value Compose insists the operator sets. */
  const interpolate = (value: string): string =>
    value.replace(/\$\{(\w+):([-?])([^}]*)\}/g, (_, name: string, kind: string, rest: string) => (kind === '-' ? rest : `<${name}>`));
  const environment = (service: Yaml): Env => {
    const entries: [string, string][] = Array.isArray(service.environment)
      ? service.environment.map((entry: string) => entry.split(/=(.*)/s).slice(0, 2))
      : Object.entries(service.environment ?? {}).map(([key, value]) => [key, String(value)]);
    return Object.fromEntries(entries.map(([key, value]) => [key, interpolate(value)]));
  };
  /** Every server named in a connection string is a service with a health check that `service` waits for. */
  const expectToWaitForItsServers = (service: Yaml, env: Env): void => {
    // A list of servers (NATS_URL names the cluster's three) is each of them.
    const hosts = Object.values(env)
      .filter((value) => /^\w+:\/\//.test(value))
      .flatMap((urls) => urls.split(','))
      .map((url) => new URL(url).hostname);
    expect(hosts.length).toBeGreaterThan(0);
    for (const host of hosts) {
      expect(services[host]?.healthcheck).toBeDefined();
      expect(service.depends_on[host]).toEqual({ condition: 'service_healthy' });
    }
  };
  const runsApp = (service: Yaml): boolean => service.build?.args?.APP !== undefined && !service.entrypoint && !service.command;

  it.each(APPS)('runs %s, healthy on the port it serves and given what it reads', (app) => {
    const matching = Object.entries(services).filter(([, service]) => runsApp(service) && service.build.args.APP === app);
    expect(matching).toHaveLength(1);
    const [, service] = matching[0]!;
    const env = environment(service);
    expect(env).toMatchObject({ HOST: '0.0.0.0', NODE_ENV: 'production' });
    expectRequiredSettings(app, env);
    expectOnlyVariablesReadBy(app, Object.keys(env));
    expect(service.healthcheck.test.join(' ')).toContain(`http://127.0.0.1:${servedPort(app, env)}/health/ready`);

    expectToWaitForItsServers(service, env);
    expect(service.depends_on.migrate).toEqual({ condition: 'service_completed_successfully' });
  });

  it('migrates every app, in one container that stops at the first failure', () => {
    const script = services.migrate.entrypoint.join(' ');
    const listed = /for app in ([^;]+);/.exec(script)?.[1]?.trim().split(/\s+/);
    expect([...(listed ?? [])].sort()).toEqual([...APPS].sort());
    expect(script).toContain('node -r ./tools/register-paths.js "dist/apps/$$app/src/main.js" migrate || exit 1');
    const env = environment(services.migrate);
    expect(env.DATABASE_URL).toBeTruthy();
    expectOnlyVariablesReadBy('migrate', Object.keys(env));
    expectToWaitForItsServers(services.migrate, env);
  });

  it("runs an ERC-4337 bundler beside each local chain whose TEST_CHAINS names one, on that chain's node, and the chain service waits for it", () => {
    const chain = Object.values(services).find((service) => runsApp(service) && service.build.args.APP === 'chain')!;
    const chains: Record<string, { rpcUrl: string; bundlerUrl?: string | null }> = JSON.parse(environment(chain).TEST_CHAINS!);
    const withBundlers = Object.entries(chains).filter(([, settings]) => settings.bundlerUrl);
    expect(withBundlers.map(([name]) => name).sort()).toEqual(['base', 'bsc']);
    for (const [, settings] of withBundlers) {
      const url = new URL(settings.bundlerUrl!);
      const bundler = services[url.hostname];
      // The chain image's compiled command, which exists, on the chain's own node and the port the URL names.
      expect(bundler.build.args.APP).toBe('chain');
      expect(bundler.entrypoint.join(' ')).toBe('node -r ./tools/register-paths.js dist/apps/chain/src/cli/local-bundler.js');
      expect(existsSync(join(ROOT, 'apps/chain/src/cli/local-bundler.ts'))).toBe(true);
      const env = environment(bundler);
      expect(env).toEqual({ RPC_URL: settings.rpcUrl, BUNDLER_PORT: url.port });
      expect(bundler.healthcheck.test.join(' ')).toContain(`http://127.0.0.1:${url.port}`);
      expect(bundler.healthcheck.test.join(' ')).toContain('eth_supportedEntryPoints');
      expect(bundler.depends_on[new URL(settings.rpcUrl).hostname]).toEqual({ condition: 'service_healthy' });
      expect(chain.depends_on[url.hostname]).toEqual({ condition: 'service_healthy' });
    }
  });

  it('publishes the gateway only, on the port it serves', () => {
    const published = Object.entries(services).filter(([, service]) => service.ports);
    expect(published.map(([name]) => name)).toEqual(['gateway']);
    const gatewayEnv = environment(services.gateway);
    const containerPorts = services.gateway.ports.map((mapping: string) => Number(mapping.split(':').pop()));
    expect(containerPorts).toEqual([servedPort('gateway', gatewayEnv)]);
  });
});

describe('deploy/ (Kubernetes)', () => {
  const kustomization = yamlDocuments('deploy/base/kustomization.yaml')[0];
  const manifests: Yaml[] = kustomization.resources.flatMap((file: string) => yamlDocuments(`deploy/base/${file}`));
  const find = (kind: string, name: string): Yaml => manifests.find((m) => m.kind === kind && m.metadata.name === name);
  const generated = kustomization.configMapGenerator.find((generator: Yaml) => generator.name === 'platform-config');
  const platformConfig = dotenv(`deploy/base/${generated.envs[0]}`);
  // The Secret templates, by name: platform-secrets (every service's), chain-custody (the chain service's alone),
  // bank-partners (the quote and ramp services', optional).
  const secretKeys: Record<string, string[]> = Object.fromEntries(
    ['platform-secrets', 'chain-custody', 'bank-partners'].map((name) => [name, Object.keys(yamlDocuments(`deploy/base/${name}.template.yaml`)[0].stringData)]),
  );
  const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([key, value]) => labels[key] === value);

  /** The variables a container gets, with secret references standing for themselves. */
  function containerEnv(container: Yaml): Env {
    const env: Env = {};
    for (const source of container.envFrom ?? []) {
      expect(source.configMapRef?.name).toBe('platform-config');
      Object.assign(env, platformConfig);
    }
    for (const entry of container.env ?? []) {
      const secret = entry.valueFrom?.secretKeyRef;
      if (secret) {
        expect(Object.keys(secretKeys)).toContain(secret.name);
        expect(secretKeys[secret.name]).toContain(secret.key);
        // Custody is the chain service's alone.
        if (secret.name === 'chain-custody') expect(container.name).toBe('chain');
        // The bank partners' keys reach only the services that call or hear the partners, and never stop a start.
        if (secret.name === 'bank-partners') {
          expect(['quote', 'ramp']).toContain(container.name);
          expect(secret.optional).toBe(true);
        }
      }
      env[entry.name] = secret ? `secret:${secret.key}` : String(entry.value ?? '');
    }
    return env;
  }

  it('lists every manifest of deploy/base in its kustomization, the Secret template excepted', () => {
    const files = readdirSync(join(ROOT, 'deploy/base')).filter((file) => /\.ya?ml$/.test(file) && file !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(files.filter((file) => !file.includes('.template.')).sort());
  });

  it.each(APPS)('runs %s with probes on the port it serves, hardened, and given every setting it needs', (app) => {
    const deployment = find('Deployment', app);
    expect(deployment).toBeDefined();
    const pod = deployment.spec.template;
    expect(matches(deployment.spec.selector.matchLabels, pod.metadata.labels)).toBe(true);
    const [container, ...others] = pod.spec.containers;
    expect(others).toEqual([]);
    expect(container.image).toBe(`ramp-platform/${app}`);

    const env = containerEnv(container);
    expect(env.HOST).toBe('0.0.0.0');
    expect(platformConfig.NODE_ENV).toBe('production');
    expectRequiredSettings(app, env);
    expectOnlyVariablesReadBy(app, Object.keys(env));
    expect(env[SETTINGS.allowInsecureHttp.env]).toBeUndefined();
    // Least privilege: the service connects as the role that may only read and write, and migrates nothing.
    expect([env.DATABASE_URL, { ...platformConfig, ...env }[SETTINGS.migrateOnStart.env]]).toEqual(['secret:DATABASE_URL', 'false']);

    const port = servedPort(app, env);
    const ops = opsPort(app, env);
    const portNumber = (ref: number | string) => (typeof ref === 'number' ? ref : container.ports.find((p: Yaml) => p.name === ref)?.containerPort);
    expect(container.ports.map((p: Yaml) => p.containerPort)).toEqual([...new Set([port, ops])]);
    const probe = (kind: string) => [container[kind].httpGet.path, portNumber(container[kind].httpGet.port)];
    expect(probe('livenessProbe')).toEqual(['/health/live', ops]);
    expect(probe('readinessProbe')).toEqual(['/health/ready', ops]);
    // Every service serves /metrics beside its probes (libs/platform/service-kit MetricsController, or the gateway's
    // OPS_PORT server): the gateway's on a port apart from its API (set in the manifests).
    expect(pod.metadata.annotations).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(ops), 'prometheus.io/path': '/metrics' });
    if (app === 'gateway') expect(ops).not.toBe(port);

    expect(container.resources.requests).toEqual({ cpu: expect.anything(), memory: expect.anything() });
    expect(container.resources.limits.memory).toBeDefined();
    expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: IMAGE_UID });
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(pod.spec.terminationGracePeriodSeconds).toBe(30);
    // Spread over zones and over nodes, each constraint counting this service's pods.
    expect(pod.spec.topologySpreadConstraints.map((c: Yaml) => [c.topologyKey, matches(c.labelSelector.matchLabels, pod.metadata.labels)])).toEqual([
      ['topology.kubernetes.io/zone', true],
      ['kubernetes.io/hostname', true],
    ]);

    const service = find('Service', app);
    expect(matches(service.spec.selector, pod.metadata.labels)).toBe(true);
    expect(service.spec.ports.map((p: Yaml) => portNumber(p.targetPort))).toEqual([port]);
    const hpa = find('HorizontalPodAutoscaler', app);
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: app });
    expect(hpa.spec.metrics[0].resource.name).toBe('cpu');
    expect(deployment.spec.replicas).toBeUndefined();
    const pdb = find('PodDisruptionBudget', app);
    expect(matches(pdb.spec.selector.matchLabels, pod.metadata.labels)).toBe(true);
  });

  it("migrates every app once, each with that app's own image", () => {
    const job = find('Job', 'platform-migrate');
    const containers: Yaml[] = [...job.spec.template.spec.initContainers, ...job.spec.template.spec.containers];
    expect(containers.map((c) => c.name).sort()).toEqual([...APPS].sort());
    for (const container of containers) {
      expect([container.image, container.args]).toEqual([`ramp-platform/${container.name}`, ['migrate']]);
      // As the schemas' owner, which the services are not.
      expect(containerEnv(container).DATABASE_URL).toBe('secret:DATABASE_MIGRATION_URL');
      expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
    }
  });

  it('denies ingress to every platform pod, lets only the gateway accept connections from anywhere, and the monitoring namespace scrape each service', () => {
    const policies = manifests.filter((m) => m.kind === 'NetworkPolicy');
    const pods = manifests.filter((m) => m.spec?.template?.metadata?.labels).map((m) => m.spec.template.metadata.labels);
    const denyAll = policies.filter((p) => p.spec.policyTypes.includes('Ingress') && !p.spec.ingress);
    expect(denyAll.length).toBeGreaterThan(0);
    for (const labels of pods) expect(denyAll.some((p) => matches(p.spec.podSelector.matchLabels, labels))).toBe(true);

    const podLabels = (app: string) => find('Deployment', app).spec.template.metadata.labels;
    const portOf = (app: string) => servedPort(app, containerEnv(find('Deployment', app).spec.template.spec.containers[0]));
    const opsPortOf = (app: string) => opsPort(app, containerEnv(find('Deployment', app).spec.template.spec.containers[0]));
    const rules = policies
      .filter((p) => p.spec.ingress)
      .flatMap((p) => p.spec.ingress.map((rule: Yaml) => ({ selector: p.spec.podSelector.matchLabels, rule })));
    const fromAnywhere = rules.filter(({ rule }) => !rule.from);
    expect(APPS.filter((app) => fromAnywhere.some(({ selector }) => matches(selector, podLabels(app))))).toEqual(['gateway']);
    expect(fromAnywhere.flatMap(({ rule }) => rule.ports.map((q: Yaml) => q.port))).toEqual([portOf('gateway')]);

    const restricted = rules.filter(({ rule }) => rule.from);
    for (const { rule } of restricted) expect(rule.from).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }]);
    for (const app of APPS) {
      const scrapable = restricted.some(({ selector, rule }) => matches(selector, podLabels(app)) && rule.ports.some((q: Yaml) => q.port === opsPortOf(app)));
      expect({ app, scrapable }).toEqual({ app, scrapable: true });
    }
    const scrapePorts = restricted.flatMap(({ rule }) => rule.ports.map((q: Yaml) => q.port));
    // The scrapers reach the probes' and metrics' ports only: never the gateway's API port.
    expect([...scrapePorts].sort()).toEqual(APPS.map(opsPortOf).sort());
    expect(scrapePorts).not.toContain(portOf('gateway'));
  });

  it('shares through platform-config only settings that every service reads', () => {
    expectOnlyVariablesReadBy('all', Object.keys(platformConfig));
  });

  describe('the monitoring component', () => {
    const component = 'deploy/components/monitoring';
    const podMonitor = yamlDocuments(`${component}/pod-monitor.yaml`)[0];
    const rule = yamlDocuments(`${component}/prometheus-rule.yaml`)[0];
    const dashboard = JSON.parse(text(`${component}/grafana-dashboard.json`));
    /** Every series name the platform's code registers (`name: 'ramp_…'` or a sampled gauge's first argument). */
    const exported = new Set(
      [...['apps', 'libs/platform'].flatMap((dir) => filesUnder(join(ROOT, dir), isBuilt))].flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/'(ramp_[a-z_]+)'/g)].map((m) => m[1]!),
      ),
    );
    const seriesIn = (expr: string) => [...expr.matchAll(/\b(ramp_[a-z_]+?)(?:_bucket|_count|_sum)?\b/g)].map((m) => m[1]!);

    it('alerts and charts only series the services export', () => {
      const exprs: string[] = [
        ...rule.spec.groups.flatMap((group: Yaml) => group.rules.map((r: Yaml) => r.expr)),
        ...dashboard.panels.flatMap((panel: Yaml) => panel.targets.map((target: Yaml) => target.expr)),
      ];
      const unknown = exprs.flatMap(seriesIn).filter((name) => !exported.has(name));
      expect(unknown).toEqual([]);
      expect(exprs.flatMap(seriesIn).length).toBeGreaterThan(10);
    });

    it("has the README's alerts: relay backlog, dead letters, delivery failures, reconciliation drift, consumer lag", () => {
      const alerted = rule.spec.groups.flatMap((group: Yaml) => group.rules.flatMap((r: Yaml) => seriesIn(r.expr)));
      for (const series of [
        'ramp_relay_lag_seconds',
        'ramp_events_consumed_total',
        'ramp_webhook_deliveries_total',
        'ramp_ledger_chain_drift_assets',
        'ramp_consumer_pending_messages',
      ]) {
        expect(alerted).toContain(series);
      }
    });

    it('scrapes each Deployment on the port its probes and the scrape policy use, never the API port', () => {
      const ports: string[] = podMonitor.spec.podMetricsEndpoints.map((endpoint: Yaml) => endpoint.port);
      for (const app of APPS) {
        const container = find('Deployment', app).spec.template.spec.containers[0];
        const probePort = container.readinessProbe.httpGet.port;
        expect({ app, scraped: ports.includes(probePort) }).toEqual({ app, scraped: true });
      }
      expect(ports).not.toContain('http');
      expect(matches(podMonitor.spec.selector.matchLabels, find('Deployment', 'gateway').spec.template.metadata.labels)).toBe(true);
    });
  });

  it('scales each consumer service on the backlog of each of its durable consumers, as SERVICE_ACCESS names them', () => {
    const scaled = yamlDocuments('deploy/components/keda-jetstream/scaled-objects.yaml');
    const consumers = Object.fromEntries(
      scaled.map((object: Yaml) => [
        object.metadata.name,
        object.spec.triggers.filter((t: Yaml) => t.type === 'nats-jetstream').map((t: Yaml) => `${t.metadata.stream}/${t.metadata.consumer}`),
      ]),
    );
    const expected = Object.fromEntries(
      NATS_SERVICE_USERS.filter((service) => SERVICE_ACCESS[service].consumes.length > 0).map((service) => [
        service,
        SERVICE_ACCESS[service].consumes.flatMap(({ stream, durables }) => durables.map((durable) => `${stream().stream}/${durable}`)),
      ]),
    );
    expect(consumers).toEqual(expected);
    for (const object of scaled) expect(object.spec.triggers[0]).toMatchObject({ type: 'cpu', metadata: { value: '70' } });
  });

  it("limits egress, when the egress component is used: the notifier, the chain service and the bank partners' callers (quote, ramp) alone to the public internet, never a private range or the metadata address", () => {
    const component = 'deploy/components/egress';
    const policies: Yaml[] = ['default-deny.yaml', 'dependencies.yaml', 'internet.yaml'].flatMap((file) => yamlDocuments(`${component}/${file}`));
    const deny = policies.find((p) => p.metadata.name === 'platform-default-deny-egress');
    expect([deny.spec.policyTypes, deny.spec.egress]).toEqual([['Egress'], undefined]);
    for (const app of APPS) expect(matches(deny.spec.podSelector.matchLabels, find('Deployment', app).spec.template.metadata.labels)).toBe(true);
    const internet = policies.filter((p) => p.metadata.name.endsWith('-allow-internet'));
    expect(internet.map((p) => p.spec.podSelector.matchLabels['app.kubernetes.io/name']).sort()).toEqual(['chain', 'notifier', 'quote', 'ramp']);
    for (const policy of internet) {
      const [rule] = policy.spec.egress;
      // The chain service's JSON-RPC endpoints on 443; the notifier's webhooks on whatever port their URL names.
      expect([policy.metadata.name, rule.ports]).toEqual(
        policy.metadata.name === 'notifier-allow-internet' ? [policy.metadata.name, undefined] : [policy.metadata.name, [{ protocol: 'TCP', port: 443 }]],
      );
      expect(rule.to[0].ipBlock.cidr).toBe('0.0.0.0/0');
      expect(rule.to[0].ipBlock.except).toEqual(
        expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '127.0.0.0/8', '100.64.0.0/10']),
      );
    }
    // Everyone else reaches only its dependencies: DNS, NATS, PostgreSQL, Redis.
    const dependencies = policies.find((p) => p.metadata.name === 'platform-allow-dependencies');
    expect(dependencies.spec.egress.flatMap((rule: Yaml) => rule.ports.map((q: Yaml) => q.port)).sort()).toEqual([4222, 53, 53, 53, 53, 5432, 6379].sort());
  });

  it('runs the migration Job before the new version, as Argo CD and Helm hooks', () => {
    const annotations = find('Job', 'platform-migrate').metadata.annotations;
    expect(annotations).toMatchObject({
      'argocd.argoproj.io/hook': 'Sync',
      'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation',
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-delete-policy': 'before-hook-creation',
    });
    // After the configuration it reads (wave -2), before the Deployments (wave 0).
    expect(Number(annotations['argocd.argoproj.io/sync-wave'])).toBeLessThan(0);
    expect(Number(generated.options.annotations['argocd.argoproj.io/sync-wave'])).toBeLessThan(Number(annotations['argocd.argoproj.io/sync-wave']));
  });

  const overlays = readdirSync(join(ROOT, 'deploy/overlays'));

  it.each(overlays)('the %s overlay pins every image, runs in production mode and trusts its ingress only', (overlay) => {
    const dir = `deploy/overlays/${overlay}`;
    const own = yamlDocuments(`${dir}/kustomization.yaml`)[0];
    expect(own.resources).toContain('../../base');
    const tags = Object.fromEntries(own.images.map((image: Yaml) => [image.name, image.digest ?? image.newTag]));
    const names = Object.fromEntries(own.images.map((image: Yaml) => [image.name, image.newName]));
    for (const app of APPS) {
      expect([app, tags[`ramp-platform/${app}`]]).toEqual([app, expect.stringMatching(/^(sha256:[0-9a-f]{64}|(?!latest$)[\w][\w.-]{0,127})$/)]);
      // From a registry (a host with a dot or a port), under the image's own name.
      expect([app, names[`ramp-platform/${app}`]]).toEqual([
        app,
        expect.stringMatching(new RegExp(`^[a-z0-9-]+(\\.[a-z0-9-]+)+(:\\d+)?/(.+/)?ramp-platform/${app}$`)),
      ]);
    }

    const generator = own.configMapGenerator.find((g: Yaml) => g.name === 'platform-config');
    expect(generator.behavior).toBe('merge');
    const config = dotenv(`${dir}/${generator.envs[0]}`);
    expect(config.NODE_ENV).toBe('production');
    expectOnlyVariablesReadBy('all', Object.keys(config));

    const gatewayPatch = own.patches
      .filter((patch: Yaml) => !patch.target)
      .flatMap((patch: Yaml) => yamlDocuments(`${dir}/kustomization.yaml (patch)`, patch.patch))
      .find((doc: Yaml) => doc.kind === 'Deployment' && doc.metadata.name === 'gateway');
    const gatewayEnv = gatewayPatch?.spec.template.spec.containers[0].env ?? [];
    const trusted = gatewayEnv.find((e: Yaml) => e.name === SETTINGS.trustedProxies.env);
    expect(trusted?.value).toMatch(/^[0-9a-f.:/, ]+$/i);
    expect(gatewayEnv.map((e: Yaml) => e.name)).not.toContain(SETTINGS.allowInsecureHttp.env);
  });
});
