import { createSignal, For, Show } from 'solid-js';
import { parse } from 'shell-quote';

/** A command line split as a shell would (quotes, escapes); null when it holds shell syntax other than words. */
export function splitCommandLine(line: string): string[] | null {
  const words = parse(line.trim());
  return words.every((w) => typeof w === 'string') ? (words as string[]) : null;
}

/**
 * stdio arguments, one per row (a path with a space is one argument), and a
 * box that takes a whole command line and fills the command and the rows.
 */
export function ArgsEditor(props: { command: string; args: string[]; onChange: (command: string, args: string[]) => void }) {
  const [line, setLine] = createSignal('');
  const [problem, setProblem] = createSignal<string | null>(null);
  const setArg = (i: number, v: string) => props.onChange(props.command, props.args.map((a, j) => (j === i ? v : a)));
  const fill = () => {
    const words = splitCommandLine(line());
    if (!words || words.length === 0) return void setProblem('Command line: only words and quotes, no pipes, redirections or variables');
    setProblem(null);
    setLine('');
    props.onChange(words[0]!, words.slice(1));
  };
  return (
    <fieldset class="args">
      <legend>Arguments, one per row</legend>
      <For each={props.args}>
        {(a, i) => (
          <div class="row">
            <input name={`arg-${i()}`} aria-label={`Argument ${i() + 1}`} value={a} onInput={(e) => setArg(i(), e.currentTarget.value)} />
            <button type="button" class="link" aria-label={`Remove argument ${i() + 1}`} onClick={() => props.onChange(props.command, props.args.filter((_, j) => j !== i()))}>Remove</button>
          </div>
        )}
      </For>
      <button type="button" class="link" onClick={() => props.onChange(props.command, [...props.args, ''])}>Add argument</button>
      <div class="row">
        <input name="commandLine" aria-label="Paste a command line" placeholder='npx -y "@scope/server" --root "/my path"' value={line()} onInput={(e) => setLine(e.currentTarget.value)} onKeyDown={(e) => e.key === 'Enter' && (e.preventDefault(), fill())} />
        <button type="button" onClick={fill}>Fill from command line</button>
      </div>
      <Show when={problem()}><span class="error field-error">{problem()}</span></Show>
    </fieldset>
  );
}
