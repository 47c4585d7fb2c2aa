import type { ServiceName } from "../../../services/kit/config/service-addresses.js";
import type { ModelContainer } from "./model-containers.js";
import type { Json, K8sObject } from "./rendered-manifests.js";
import { selectorMatches } from "./network-policy.js";

/** Where a Kubernetes Service sends a port: the containers behind it and the container port reached. */
export interface RouteTarget {
  readonly container: ModelContainer;
  readonly containerPort: number;
}

/** The Service a `host:port` address names from `namespace` (name, name.ns, name.ns.svc[.cluster.local]). */
export function findServiceForAddress(
  objects: readonly K8sObject[],
  address: string,
  namespace: string,
): { service: K8sObject; port: number } | undefined {
  const [host, portText] = address.split(":");
  const port = Number(portText);
  const [name, serviceNamespace = namespace, ...suffix] = (host ?? "").split(".");
  if (suffix.length > 0 && suffix.join(".") !== "svc" && suffix.join(".") !== "svc.cluster.local") return undefined;
  const service = objects.find(
    (object) => object.kind === "Service" && object.metadata.name === name && object.metadata.namespace === serviceNamespace,
  );
  return service === undefined ? undefined : { service, port };
}

/** The containers and ports a Service port routes to (named or numeric targetPort). */
export function routeServicePort(service: K8sObject, port: number, containers: readonly ModelContainer[]): RouteTarget[] {
  const servicePort = (service.spec.ports as Json[]).find((candidate) => candidate.port === port);
  if (servicePort === undefined) return [];
  const targetPort = servicePort.targetPort ?? servicePort.port;
  const targets: RouteTarget[] = [];
  for (const container of containers) {
    if (container.workload.metadata.namespace !== service.metadata.namespace) continue;
    if (!selectorMatches({ matchLabels: service.spec.selector }, container.podLabels)) continue;
    const containerPort = (container.container.ports ?? []).find((candidate: Json) =>
      typeof targetPort === "number" ? candidate.containerPort === targetPort : candidate.name === targetPort,
    );
    if (containerPort !== undefined) targets.push({ container, containerPort: containerPort.containerPort });
  }
  return targets;
}

/** The service a container listens for on `port`, given each service's effective listening port. */
export function serviceOnPort(
  container: ModelContainer,
  port: number,
  listeningPorts: ReadonlyMap<ServiceName, number>,
): ServiceName | undefined {
  return container.services.find((service) => listeningPorts.get(service) === port);
}
