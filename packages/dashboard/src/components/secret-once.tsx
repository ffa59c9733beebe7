import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * A secret the API shows once (a new key, a rotated webhook secret): a read-only field, a copy
 * button, and the warning that it will not be shown again. It lives only in this component's
 * props: nothing stores it, and leaving the page forgets it.
 */
export function SecretOnce(props: { label: string; secret: string; note?: string; onDone: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  // Focus (and select) the secret when it appears, so it is announced and ready to copy.
  useEffect(() => field.current?.focus(), [props.secret]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied('Copied to the clipboard.');
    } catch {
      // No clipboard permission (plain http, an old browser): select it for Ctrl+C instead.
      field.current?.select();
      setCopied('Selected: press Ctrl+C (⌘C) to copy.');
    }
  };
  return (
    <section class="secret-once" aria-labelledby="secret-once-title" data-testid="secret-once">
      <h3 id="secret-once-title">{props.label}</h3>
      <p>
        <strong>Copy it now: it is shown only this once.</strong> The server keeps only its hash.
        {props.note ? ` ${props.note}` : ''}
      </p>
      <div class="row">
        <label class="grow">
          <span class="visually-hidden">{props.label}</span>
          <input
            ref={field}
            readOnly
            value={props.secret}
            data-testid="secret-value"
            onFocus={(e) => e.currentTarget.select()}
            spellcheck={false}
          />
        </label>
        <button type="button" onClick={copy}>
          Copy
        </button>
        <button type="button" class="secondary" onClick={props.onDone}>
          Done
        </button>
      </div>
      <p role="status" aria-live="polite">
        {copied}
      </p>
    </section>
  );
}
