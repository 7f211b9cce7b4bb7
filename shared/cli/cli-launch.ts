/** How the CLI was started, as commands see it. */
export interface CliLaunch {
  /** the entry a command may start again in a node with other flags (bin/paracap.js); absent when called in-process */
  script?: string;
}
