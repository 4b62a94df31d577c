import { useEffect, type RefObject } from 'react';

/**
 * A `<details>` used as a drop-down menu (the header's Display menu) closes the way a menu does:
 * on Escape (focus goes back to its summary) and on a press outside it. A `<details>` alone stays
 * open until its summary is clicked again, covering what lies under it.
 */
export function useMenuDetails(ref: RefObject<HTMLDetailsElement | null>): void {
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const doc = el.ownerDocument;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || !el.open) return;
      el.open = false;
      el.querySelector('summary')?.focus();
    };
    const onPress = (e: Event) => {
      if (el.open && e.target instanceof Node && !el.contains(e.target)) el.open = false;
    };
    doc.addEventListener('keydown', onKey);
    doc.addEventListener('pointerdown', onPress);
    return () => {
      doc.removeEventListener('keydown', onKey);
      doc.removeEventListener('pointerdown', onPress);
    };
  }, [ref]);
}
