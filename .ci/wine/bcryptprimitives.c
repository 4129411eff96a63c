/* Stand-in for bcryptprimitives.dll under Wine releases that lack it
 * (Wine 8): Rust's standard library imports ProcessPrng from it. Placed
 * beside the .exe for the smoke run only; Windows has the real DLL. */
#include <windows.h>
#define SystemFunction036 NTAPI SystemFunction036
#include <ntsecapi.h>
#undef SystemFunction036

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    return RtlGenRandom(data, (ULONG)len);
}
