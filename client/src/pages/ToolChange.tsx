import { For, Show } from 'solid-js';
import { api, can } from '../api';
import { useAction, Notice } from '../ui';

type Change = { seenAt: string; changes: Array<{ field: string; before?: unknown; after?: unknown }> };

const shown = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2) ?? '(none)');

/**
 * A pinned tool (or prompt) its upstream changed: what changed, field by field,
 * and the admin's approve or reject (reject keeps the pin and switches it off).
 */
export function ToolChangeReview(props: { server: string; tool: string; kind?: 'tools' | 'prompts'; change: Change; onDecided: () => void }) {
  const noun = () => (props.kind === 'prompts' ? 'prompt' : 'tool');
  const action = useAction();
  const decide = (approve: boolean) =>
    action
      .run(approve ? `Change of ${props.tool} approved` : `Change of ${props.tool} rejected; the ${noun()} is off`, () =>
        (approve ? api().pins.approve : api().pins.reject).mutate({ server: props.server, tool: props.tool, kind: props.kind ?? 'tools' }),
      )
      .then(props.onDecided);
  return (
    <div class="tool-change" role="group" aria-label={`Change of ${noun()} ${props.tool}`}>
      <span class="badge badge-error">changed upstream</span>{' '}
      <span class="muted">since {new Date(props.change.seenAt).toLocaleString()}</span>
      <For each={props.change.changes}>
        {(c) => (
          <div class="diff">
            <strong>{c.field}</strong>
            <pre class="diff-before" aria-label={`${c.field} before`}>{shown(c.before)}</pre>
            <pre class="diff-after" aria-label={`${c.field} after`}>{shown(c.after)}</pre>
          </div>
        )}
      </For>
      <Show when={can('config:write')}>
        <button type="button" onClick={() => void decide(true)} disabled={action.busy()}>Approve change</button>
        <button type="button" class="danger" onClick={() => void decide(false)} disabled={action.busy()}>Reject change</button>
      </Show>
      <Notice message={action.message()} />
    </div>
  );
}
