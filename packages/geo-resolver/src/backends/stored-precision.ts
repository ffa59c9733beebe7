/**
 * A decoded coordinate at the precision its file stores. mmdb files store coordinates as doubles
 * (MaxMind) or as 32-bit floats (ip-location-db's DB-IP files): a float decodes to the double
 * nearest to it, so 37.422 stored as a float reads back as 37.422000885009766. A value that is
 * exactly a float32 is given as the shortest decimal that rounds to the same float32; any other
 * value is a double and is returned unchanged. (A double that happens to be exactly a float32
 * carries no more than float precision either, so the shortest float decimal is still right.)
 */
export function storedPrecision(value: number): number {
  if (Math.fround(value) !== value || !Number.isFinite(value)) return value;
  // Fewest decimals first: m / 10^d is the correctly rounded double of the decimal m·10^-d (both
  // exact below 2^53), the same double parsing the decimal gives. A scaling error only makes a
  // candidate fail the round-trip test, never returns a wrong value.
  if (Math.abs(value) < 1e6) {
    let scale = 1;
    for (let decimals = 0; decimals <= 12; decimals++) {
      const candidate = Math.round(value * scale) / scale;
      if (Math.fround(candidate) === value) return candidate;
      scale *= 10;
    }
  }
  // Nine significant digits always round-trip a float32.
  for (let digits = 1; digits <= 9; digits++) {
    const candidate = Number(value.toPrecision(digits));
    if (Math.fround(candidate) === value) return candidate;
  }
  return value;
}
