import { createSignal, For, Show, type JSX } from 'solid-js';
import { errorMessage } from './api';

/** Runs an action with progress and a clear success or error message. */
export function useAction() {
  const [busy, setBusy] = createSignal(false);
  const [message, setMessage] = createSignal<{ ok: boolean; text: string } | null>(null);
  const run = async <T,>(label: string, fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setMessage(null);
    try {
      const r = await fn();
      setMessage({ ok: true, text: label });
      return r;
    } catch (err) {
      setMessage({ ok: false, text: errorMessage(err) });
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, message, run, setMessage };
}

export function Notice(props: { message: { ok: boolean; text: string } | null }) {
  return (
    <Show when={props.message}>
      <p class={props.message!.ok ? 'ok' : 'error'} role={props.message!.ok ? 'status' : 'alert'}>
        {props.message!.text}
      </p>
    </Show>
  );
}

export function StatusBadge(props: { status: string }) {
  return <span class={`badge badge-${props.status}`} data-status={props.status}>{props.status}</span>;
}

/** Key/value pairs (env, headers) as rows of inputs. */
export function KeyValueEditor(props: { label: string; value: Record<string, string>; onChange: (v: Record<string, string>) => void }) {
  const rows = () => Object.entries(props.value);
  const set = (i: number, k: string, v: string) => {
    const next = rows().map((r, j) => (j === i ? [k, v] : r));
    props.onChange(Object.fromEntries(next.filter(([key]) => key !== '' || true)));
  };
  return (
    <fieldset class="kv">
      <legend>{props.label}</legend>
      <For each={rows()}>
        {([k, v], i) => (
          <div class="row">
            <input aria-label={`${props.label} name`} value={k} onChange={(e) => set(i(), e.currentTarget.value, v)} />
            <input aria-label={`${props.label} value`} value={v} onChange={(e) => set(i(), k, e.currentTarget.value)} />
            <button type="button" class="link" onClick={() => props.onChange(Object.fromEntries(rows().filter((_, j) => j !== i())))}>Remove</button>
          </div>
        )}
      </For>
      <button type="button" class="link" onClick={() => props.onChange({ ...props.value, [`NAME_${rows().length + 1}`]: '' })}>Add</button>
    </fieldset>
  );
}

export function Field(props: { label: string; error?: string | null; children: JSX.Element }) {
  return (
    <label>
      {props.label}
      {props.children}
      <Show when={props.error}>
        <span class="error field-error">{props.error}</span>
      </Show>
    </label>
  );
}

type Issue = { code: string; message: string; minimum?: number | bigint; maximum?: number | bigint; origin?: string; input?: unknown; format?: string };

/**
 * A schema problem said in words ("is required", "at most 100 characters").
 * The contract's own messages are already words and are kept; zod's generic
 * ones ("Too big: expected string to have <=100 characters") are rewritten.
 */
export function inWords(issue: Issue): string {
  const unit = issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' entries' : '';
  const generic = /^(Too (big|small)|Invalid (input|string|format)|Expected|Required)/i.test(issue.message);
  if (!generic) return issue.message;
  switch (issue.code) {
    case 'too_small':
      return Number(issue.minimum) <= 1 && issue.origin !== 'number' ? 'is required' : `at least ${issue.minimum}${unit}`;
    case 'too_big':
      return `at most ${issue.maximum}${unit}`;
    case 'invalid_type':
      return issue.input === undefined || issue.input === '' ? 'is required' : 'has the wrong type';
    case 'invalid_format':
      return issue.format === 'url' ? 'must be a URL (https://…)' : `must be a valid ${issue.format ?? 'value'}`;
    default:
      return issue.message;
  }
}
