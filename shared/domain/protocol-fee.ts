/** 15 bps in pips (hundredths of a basis point): the spec's default protocol fee, PROTOCOL_FEE_PIPS unset. */
export const DEFAULT_PROTOCOL_FEE_PIPS = 1500;
