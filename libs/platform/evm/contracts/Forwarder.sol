// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

interface IForwarderParent {
    function parent() external view returns (address);
}

/// @notice A deposit address. Its address is known before it exists (CREATE2 by the ForwarderFactory with a salt per
/// wallet or off-ramp), so tokens and the native coin can be sent to it first; the platform then deploys it and
/// flushes everything to the parent (the chain's hot wallet). Nobody but the factory can flush, and a flush can only
/// ever pay the parent: the contract holds no key and has no other way out.
contract Forwarder {
    using SafeERC20 for IERC20;

    address public immutable factory;
    address public immutable parent;

    error NotFactory(address caller);
    error NativeTransferFailed();

    constructor() {
        factory = msg.sender;
        parent = IForwarderParent(msg.sender).parent();
    }

    /// Native coin sent after deployment waits here for the next flush.
    receive() external payable {}

    function flush(address[] calldata tokens) external {
        if (msg.sender != factory) revert NotFactory(msg.sender);
        for (uint256 i = 0; i < tokens.length; i++) {
            IERC20 token = IERC20(tokens[i]);
            uint256 balance = token.balanceOf(address(this));
            if (balance > 0) token.safeTransfer(parent, balance);
        }
        if (address(this).balance > 0) {
            (bool ok, ) = payable(parent).call{value: address(this).balance}("");
            if (!ok) revert NativeTransferFailed();
        }
    }
}
