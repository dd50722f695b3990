/*
 * ldp_slim_check.c — links against libdpbayes-ldp.a alone (with libcrypto
 * and libm, no GSL, no BLAS): parses the protocol file given as argv[1],
 * randomizes one record of zeros (y = 1) from the OS source, and prints the
 * protocol id, the report width and whether the report lies on its grids.
 * test/ldp_cli.sh compares the id with the full CLI's.
 */
#include "ldp.h"

#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	static char json[1 << 16];
	dpb_ldp_protocol p;
	dpb_ldp_calib *c = malloc(sizeof(*c));
	dpb_err		err;
	dpb_rbits  *rb;
	double		in[DPB_MAX_D + 1] = {0},
			   *z;
	size_t		n;
	FILE	   *f;

	if (argc != 2 || c == NULL || (f = fopen(argv[1], "r")) == NULL)
		return 2;
	n = fread(json, 1, sizeof(json) - 1, f);
	fclose(f);
	json[n] = '\0';
	if (dpb_ldp_protocol_parse(json, &p, &err) != DPB_OK ||
		dpb_ldp_calibrate(&p, c, &err) != DPB_OK)
		return 1;
	in[dpb_ldp_input_len(&p) - 1] = 1;
	if (p.mech == DPB_LDP_OUE)
		in[0] = 1;
	z = malloc(sizeof(double) * c->report_len);
	rb = dpb_ldp_rbits_os();
	if (z == NULL || rb == NULL || dpb_ldp_randomize(&p, c, in, rb, z, &err) != DPB_OK)
		return 3;
	printf("%s %d %d\n", p.id, c->report_len, dpb_ldp_report_on_grid(&p, c, z));
	dpb_rbits_free(rb);
	free(z);
	free(c);
	return 0;
}
