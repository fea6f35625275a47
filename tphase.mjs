const T=[["start",performance.now()]];
const { setFlagsFromString } = await import("node:v8");
const y = await import("yargs"); T.push(["yargs",performance.now()]);
const c = await import("./dist/src/cli/commands/index.js"); const cmds = await c.loadCommands(); T.push(["commands",performance.now()]);
const m = await import("./dist/src/cli/main.js"); T.push(["main",performance.now()]);
const code = await m.main(["inspect","samples/modern"]); T.push(["run",performance.now()]);
let p=0; process.stderr.write(T.map(([k,t])=>`${k} ${(t-(p||t)).toFixed(1)}${(p=t,"")}`).join(" | ")+` | sinceboot ${T[0][1].toFixed(1)}\n`);
