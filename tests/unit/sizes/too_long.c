/* A deliberate violation for unit.sizes_detects_violation: one function
 * over the limit the test passes (--max-func 5). */
int too_long(int x)
{
    x += 1;
    x += 2;
    x += 3;
    x += 4;
    x += 5;
    return x;
}
