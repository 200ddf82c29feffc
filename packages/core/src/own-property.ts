/**
 * Sets `name` on `target` as an own, enumerable data property. Plain assignment of a key named
 * `__proto__` (a header or a JSON key a sender chose) would set the prototype instead, and the
 * entry would vanish from the object.
 */
export function setOwn(target: object, name: string, value: unknown): void {
  Object.defineProperty(target, name, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
