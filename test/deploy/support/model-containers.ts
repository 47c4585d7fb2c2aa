import { parseFlags } from "../../../cli/parse-flags.js";
import { COMMANDS } from "../../../cli/commands/index.js";
import { SERVICE_NAMES, type ServiceName, peerAddressKey } from "../../../services/kit/config/service-addresses.js";
import { SERVICE_LAUNCHERS } from "../../../services/mesh/service-launchers.js";
import { type Json, type K8sObject, describeObject } from "./rendered-manifests.js";

/** The image name the manifests use for our container (retagged by each overlay's `images`). */
export const MODEL_IMAGE = "kepler-model";

/** One container of a rendered workload that runs our image, with what the CLI would make of it. */
export interface ModelContainer {
  readonly where: string;
  readonly workload: K8sObject;
  readonly podLabels: Readonly<Record<string, string>>;
  readonly container: Record<string, Json>;
  readonly command: string;
  readonly flags: Readonly<Record<string, string | boolean>>;
  /** The services `serve` starts: the positionals, or all six when there are none. */
  readonly services: readonly ServiceName[];
  /** The container's environment: `env` values plus the data of every `envFrom` ConfigMap. */
  readonly env: Readonly<Record<string, string>>;
}

const WORKLOAD_KINDS = new Set(["Deployment", "DaemonSet", "StatefulSet"]);

function imageName(image: string): string {
  const withoutDigest = image.split("@")[0] ?? image;
  const lastSlash = withoutDigest.lastIndexOf("/");
  const colon = withoutDigest.indexOf(":", lastSlash + 1);
  const path = colon < 0 ? withoutDigest : withoutDigest.slice(0, colon);
  return path.slice(lastSlash + 1);
}

/** Every container in `objects` that runs the kepler-model image, interpreted with the real CLI parser. */
export function findModelContainers(objects: readonly K8sObject[]): ModelContainer[] {
  const found: ModelContainer[] = [];
  for (const workload of objects.filter((object) => WORKLOAD_KINDS.has(object.kind))) {
    const pod = workload.spec.template;
    for (const container of pod.spec.containers) {
      if (imageName(container.image) !== MODEL_IMAGE) continue;
      const where = `${describeObject(workload)} container ${container.name}`;
      const [commandName, ...rest] = (container.args ?? []) as string[];
      const command = COMMANDS.find((candidate) => candidate.name === commandName);
      if (command === undefined) throw new Error(`${where}: args[0] "${commandName}" is not a kepler-model command`);
      const { flags, positionals } = parseFlags(rest, command.flags);
      for (const name of positionals) {
        if (!(SERVICE_NAMES as string[]).includes(name)) throw new Error(`${where}: "${name}" is not a service`);
      }
      found.push({
        where,
        workload,
        podLabels: pod.metadata?.labels ?? {},
        container,
        command: command.name,
        flags,
        services: positionals.length > 0 ? (positionals as ServiceName[]) : SERVICE_NAMES,
        env: containerEnvironment(container, objects, workload.metadata.namespace, where),
      });
    }
  }
  return found;
}

function containerEnvironment(
  container: Record<string, Json>,
  objects: readonly K8sObject[],
  namespace: string | undefined,
  where: string,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const name = source.configMapRef?.name;
    if (name === undefined) throw new Error(`${where}: only configMapRef is expected in envFrom`);
    const configMap = objects.find(
      (object) => object.kind === "ConfigMap" && object.metadata.name === name && object.metadata.namespace === namespace,
    );
    if (configMap === undefined) throw new Error(`${where}: envFrom ConfigMap ${name} is not in the rendered manifests`);
    Object.assign(env, configMap.data ?? {});
  }
  for (const variable of container.env ?? []) {
    // A Secret's value is unknown when rendering: it counts as set but empty (the key's default).
    if (variable.valueFrom?.secretKeyRef !== undefined) {
      env[variable.name] = "";
      continue;
    }
    if (variable.value === undefined) throw new Error(`${where}: env ${variable.name} must have a literal value`);
    env[variable.name] = variable.value;
  }
  return env;
}

/** The address each service of `container` calls each peer it does not run itself at (its effective config). */
export function peerAddressesOf(container: ModelContainer): { service: ServiceName; peer: ServiceName; address: string }[] {
  return container.services.flatMap((service) => {
    const launcher = SERVICE_LAUNCHERS[service];
    const config = launcher.readConfig(container.env, container.flags) as Record<string, unknown>;
    return launcher.peers
      .filter((peer) => !container.services.includes(peer))
      .map((peer) => {
        const env = peerAddressKey(peer).env;
        const field = Object.entries(launcher.configSchema).find(([, configKey]) => configKey.env === env)?.[0];
        if (field === undefined) throw new Error(`${service}'s config has no ${env}`);
        return { service, peer, address: config[field] as string };
      });
  });
}
