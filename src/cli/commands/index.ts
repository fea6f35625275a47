/**
 * Every CLI command, one module each. A command module stays thin: parse arguments, call the library,
 * render. Add new commands here.
 */
import type { CommandModule } from "yargs";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCommand = CommandModule<any, any>;

export async function loadCommands(): Promise<AnyCommand[]> {
  const modules: Promise<{ command: AnyCommand }>[] = [
    // one line per command:
    import("./sst.js"),
    import("./inspect.js"),
    import("./sizes.js"),
    import("./compact.js"),
    import("./probe.js"),
    import("./check.js"),
    import("./diff.js"),
    import("./report.js"),
    import("./tui.js"),
    import("./default.js"),
  ];
  return (await Promise.all(modules)).map((m) => m.command);
}
