import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../domain/errors.js";
import { assertAllowedPrometheusUrl, checkAllowlistEntries, createAllowlist } from "./url-allowlist.js";

const list = createAllowlist(["http://127.0.0.1:9090", "HTTPS://Prom.Example:443/prometheus/", "http://thanos.example"]);

function verdict(url: string): string {
  try {
    assertAllowedPrometheusUrl(url, list, "window.base_url");
    return "allowed";
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).field).toBe("window.base_url");
    return "refused";
  }
}

describe("Prometheus URL allowlist", () => {
  it.each([
    "http://127.0.0.1:9090",
    "http://127.0.0.1:9090/",
    "HTTP://127.0.0.1:9090/api/../",
    "https://prom.example/prometheus",
    "https://PROM.example:443/prometheus/sub",
    "http://thanos.example:80/",
    "http://thanos.example/any/path",
  ])("allows %s", (url) => expect(verdict(url)).toBe("allowed"));

  it.each([
    "http://127.0.0.1:9091",
    "https://127.0.0.1:9090",
    "http://127.0.0.1:9090@evil.example/",
    "http://user:pw@127.0.0.1:9090/",
    "http://169.254.169.254/",
    "http://[::1]:9090",
    "https://prom.example/prometheus-admin",
    "https://prom.example/prometheus/../admin",
    "https://prom.example/prometheus/%2e%2e/admin",
    "https://prom.example/",
    "http://thanos.example:8080/",
    "ftp://127.0.0.1:9090/",
    "file:///etc/passwd",
    "not a url",
  ])("refuses %s", (url) => expect(verdict(url)).toBe("refused"));

  it("names the field and the flag that lists the allowed URLs", () => {
    expect(() => assertAllowedPrometheusUrl("http://169.254.169.254/", list, "options.window.base_url")).toThrow(
      'options.window.base_url: "http://169.254.169.254:80" is not an allowed Prometheus URL (allowed: http://127.0.0.1:9090, https://prom.example:443/prometheus, http://thanos.example:80); the server operator lists them with --prometheus-allowlist / KEPLER_MODEL_PROMETHEUS_ALLOWLIST',
    );
  });

  it("* allows any http(s) URL but still refuses user info and other schemes", () => {
    const any = createAllowlist(["*"]);
    expect(() => assertAllowedPrometheusUrl("http://10.0.0.1:1234/x", any, "base_url")).not.toThrow();
    expect(() => assertAllowedPrometheusUrl("http://a@10.0.0.1/", any, "base_url")).toThrow("must not carry user info");
    expect(() => assertAllowedPrometheusUrl("gopher://10.0.0.1/", any, "base_url")).toThrow("not an http or https URL");
  });

  it("an empty list allows nothing; config entries are checked", () => {
    expect(() => assertAllowedPrometheusUrl("http://127.0.0.1:9090", createAllowlist([]), "base_url")).toThrow("(allowed: none)");
    expect(checkAllowlistEntries(["http://127.0.0.1:9090", "*"])).toBeUndefined();
    expect(checkAllowlistEntries(["127.0.0.1:9090"])).toBe(
      '"127.0.0.1:9090" is not a URL (expected http(s)://host[:port][/path])',
    );
    expect(checkAllowlistEntries(["prometheus:9090"])).toBe('"prometheus:9090" is not an http or https URL');
    expect(checkAllowlistEntries(["http://u@host/"])).toBe('"http://u@host/" must not carry user info (user@host)');
  });
});
