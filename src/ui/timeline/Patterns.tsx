/** The SVG patterns the lanes use (`${uid}-hatch` paused, `-dots` waiting, `-cross` crashed, `-dup` a duplicate write); ids are per timeline. */

/** The <defs> of one timeline. */
export function Patterns({ uid }: { uid: string }) {
  return (
    <defs>
      <pattern id={`${uid}-hatch`} width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
        <rect width="8" height="8" fill="transparent" />
        <line x1="0" y1="0" x2="0" y2="8" stroke="#ffffff" strokeWidth="3" strokeOpacity="0.55" />
      </pattern>
      <pattern id={`${uid}-dots`} width="6" height="6" patternUnits="userSpaceOnUse">
        <circle cx="3" cy="3" r="1.3" fill="#343a40" />
      </pattern>
      <pattern id={`${uid}-cross`} width="8" height="8" patternUnits="userSpaceOnUse">
        <path d="M0,0 L8,8 M8,0 L0,8" stroke="#ffffff" strokeWidth="1.5" strokeOpacity="0.7" />
      </pattern>
      <pattern id={`${uid}-dup`} width="10" height="10" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)">
        <rect width="10" height="10" fill="#b91c1c" />
        <line x1="0" y1="0" x2="0" y2="10" stroke="#ffffff" strokeWidth="4" strokeOpacity="0.5" />
      </pattern>
    </defs>
  );
}
