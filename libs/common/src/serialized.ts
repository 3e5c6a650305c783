/**
 * What a service value looks like once Nest has sent it as JSON: a `Date` becomes its ISO string, arrays
 * and objects are mapped member by member, everything else is unchanged. A response DTO documents the wire,
 * so it `implements Serialized<ServiceType>`: a field the service returns but the DTO does not document,
 * or documents with another type, is a compile error (docs/CONVENTIONS.md "Validation").
 */
export type Serialized<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? Serialized<U>[]
    : T extends (...args: never[]) => unknown
      ? never
      : T extends object
        ? { [K in keyof T]: Serialized<T[K]> }
        : T;
