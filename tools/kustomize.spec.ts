import { spawnSync } from 'child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { join, relative, resolve } from 'path';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { PodMonitor, PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';

/**
 * Every overlay as `kubectl kustomize` renders it (kustomize v5, as `kubectl apply -k` does), each object validated
 * against its Kubernetes schema (kubernetes-models, generated from the API's OpenAPI; the Prometheus Operator's CRDs
 * from theirs). An object of a kind without a schema here fails the test: add its model.
 */
const ROOT = resolve(__dirname, '..');
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'apps/v1 Deployment': Deployment,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1 Job': Job,
  'networking.k8s.io/v1 NetworkPolicy': NetworkPolicy,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'v1 ConfigMap': ConfigMap,
  'v1 Secret': Secret,
  'v1 Service': Service,
  'monitoring.coreos.com/v1 PodMonitor': PodMonitor,
  'monitoring.coreos.com/v1 PrometheusRule': PrometheusRule,
  'keda.sh/v1alpha1 ScaledObject': ScaledObject,
};

function render(dir: string): any[] {
  const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`kubectl kustomize ${relative(ROOT, dir)} failed: ${result.stderr || result.error}`);
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJSON())
    .filter(Boolean);
}

function invalid(objects: any[]): string[] {
  return objects.flatMap((object) => {
    const Model = MODELS[`${object.apiVersion} ${object.kind}`];
    if (!Model) return [`${object.apiVersion} ${object.kind} ${object.metadata?.name}: no schema in this test`];
    try {
      new Model(object).validate();
      return [];
    } catch (error) {
      return [`${object.kind} ${object.metadata?.name}: ${String((error as Error).message).slice(0, 500)}`];
    }
  });
}

describe('deploy/ rendered - every overlay, valid against the Kubernetes schemas', () => {
  const overlays = readdirSync(join(ROOT, 'deploy/overlays'));

  it.each(overlays)('renders the %s overlay into objects the API server would accept', (overlay) => {
    const objects = render(join(ROOT, 'deploy/overlays', overlay));
    expect(objects.filter((object) => object.kind === 'Deployment')).toHaveLength(7);
    expect(invalid(objects)).toEqual([]);
  });

  it('renders the production overlay with the optional components: monitoring, scaling on the JetStream backlog, egress', () => {
    // An overlay of the production one that adds the optional components, as an operator's would (its namespace too:
    // a component's objects take the namespace of the kustomization that lists it).
    const dir = mkdtempSync(join(ROOT, 'deploy/.render-'));
    try {
      writeFileSync(
        join(dir, 'kustomization.yaml'),
        [
          'apiVersion: kustomize.config.k8s.io/v1beta1',
          'kind: Kustomization',
          'namespace: ramp-production',
          'resources:',
          '  - ../overlays/production',
          'components:',
          '  - ../components/monitoring',
          '  - ../components/keda-jetstream',
          '  - ../components/egress',
          '',
        ].join('\n'),
      );
      const objects = render(dir);
      expect(objects.map((object) => object.kind)).toEqual(expect.arrayContaining(['PodMonitor', 'PrometheusRule']));
      const dashboard = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.labels?.grafana_dashboard === '1');
      expect(JSON.parse(dashboard.data['ramp-platform.json']).panels.length).toBeGreaterThan(0);
      expect(objects.every((object) => object.metadata.namespace === 'ramp-production')).toBe(true);
      // Each Deployment has one autoscaler: its HPA, or the ScaledObject that replaces it for the consumers.
      const scalers = objects
        .filter((object) => ['HorizontalPodAutoscaler', 'ScaledObject'].includes(object.kind))
        .map((object) => object.metadata.name)
        .sort();
      expect(scalers).toEqual(
        objects
          .filter((object) => object.kind === 'Deployment')
          .map((object) => object.metadata.name)
          .sort(),
      );
      expect(
        objects
          .filter((object) => object.kind === 'ScaledObject')
          .map((object) => object.metadata.name)
          .sort(),
      ).toEqual(['ledger', 'notifier', 'ramp', 'swap-transfer']);
      expect(invalid(objects)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("validates the NATS namespace's network policy (deploy/nats, applied apart)", () => {
    const objects = parseAllDocuments(readFileSync(join(ROOT, 'deploy/nats/network-policy.yaml'), 'utf8')).map((document) => document.toJSON());
    expect(objects.map((object) => object.kind)).toEqual(['NetworkPolicy']);
    expect(invalid(objects)).toEqual([]);
  });

  it('names an invalid object: a Deployment without its selector is refused', () => {
    const [deployment] = render(join(ROOT, 'deploy/overlays/staging')).filter((object) => object.kind === 'Deployment');
    delete deployment.spec.selector;
    expect(invalid([deployment])).toEqual([expect.stringContaining('Deployment')]);
  });
});
