/** Ends an exhaustive switch: adding a union member without handling it fails to compile. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`Unhandled ${what}: ${JSON.stringify(value)}`);
}
