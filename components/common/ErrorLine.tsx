/**
 * The line under a control that says why its last action failed, read out at once (role=alert);
 * nothing while there is no error. `inline` for a control laid out in a row (the profile name form).
 */
export function ErrorLine({ error, testId, inline }: { error: string | undefined; testId?: string; inline?: boolean }) {
  if (!error) return null;
  const Line = inline ? 'span' : 'p';
  return (
    <Line class="error" role="alert" data-testid={testId}>
      {error}
    </Line>
  );
}
