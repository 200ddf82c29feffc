/**
 * Java's `String.hashCode()`: s[0]·31^(n-1) + … + s[n-1] over UTF-16 code units, in 32-bit
 * signed arithmetic. The reference derives values from it (lock keys, for one) that replicas of
 * the Kotlin build read too, so it must agree bit for bit.
 */
export function javaStringHashCode(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) {
    // Math.imul and `| 0` wrap like Java's int overflow; plain arithmetic would lose bits.
    hash = (Math.imul(31, hash) + text.charCodeAt(i)) | 0;
  }
  return hash;
}
